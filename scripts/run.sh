#!/usr/bin/env bash
# The main job on its embedded default: installs what is needed, builds, then walks through
# ec-tool on a few profiles: encode a file, lose shards, decode from what is left, check the
# bytes, and (for CLAY) repair a lost shard from the planned sub-chunks, printing what was read.
# Usage: scripts/run.sh [WORKDIR]   (default: a fresh directory under /tmp, removed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

scripts/setup.sh
scripts/build.sh release

tool="$root/build/bin/ec-tool"
work="${1:-}"
cleanup=0
if [ -z "$work" ]; then
  work="$(mktemp -d /tmp/ecstore-walkthrough.XXXXXX)"
  cleanup=1
fi
mkdir -p "$work"
[ "$cleanup" -eq 1 ] && trap 'rm -rf "$work"' EXIT

object="$work/object"
head -c 1048576 /dev/urandom > "$object"
echo "== object: $object ($(stat -c %s "$object") bytes)"

walk() {
  local profile="$1" su="$2" lost="$3"
  echo
  echo "== profile: $profile   stripe unit: $su"
  "$tool" validate-profile "$profile"
  local n; n="$("$tool" validate-profile "$profile" chunk_count)"
  local k; k="$("$tool" validate-profile "$profile" data_chunk_count)"
  local dir="$work/$(echo "$profile" | tr ',=' '__')"
  mkdir -p "$dir"
  cp "$object" "$dir/obj"
  local all; all="$(seq -s, 0 $((n - 1)))"
  "$tool" encode "$profile" "$su" "$all" "$dir/obj"
  echo "encoded into $n shards of $(stat -c %s "$dir/obj.0") bytes each"
  mv "$dir/obj" "$dir/obj.orig"
  # Lose the listed shards, decode from the survivors.
  local avail=""
  for i in $(seq 0 $((n - 1))); do
    if [[ ",$lost," == *",$i,"* ]]; then rm -f "$dir/obj.$i"; else avail="$avail${avail:+,}$i"; fi
  done
  echo "lost shards {$lost}; decoding from {$avail}"
  "$tool" decode "$profile" "$su" "$avail" "$dir/obj"
  if cmp -s -n "$(stat -c %s "$dir/obj.orig")" "$dir/obj" "$dir/obj.orig"; then
    echo "decoded object matches the original ($k of $n shards were enough)"
  else
    echo "MISMATCH after decode" >&2
    exit 1
  fi
}

# Repair one lost shard and show what it cost to read: RS reads k whole chunks, CLAY reads d
# helpers x 1/q of each chunk (q = d-k+1).
repair() {
  local profile="$1" su="$2" lost="$3"
  local dir="$work/repair_$(echo "$profile" | tr ',=' '__')"
  mkdir -p "$dir"
  cp "$object" "$dir/obj"
  local n; n="$("$tool" validate-profile "$profile" chunk_count)"
  "$tool" encode "$profile" "$su" "$(seq -s, 0 $((n - 1)))" "$dir/obj"
  mv "$dir/obj.$lost" "$dir/lost.orig"
  echo
  echo "== repair of shard $lost with $profile (shard files of $(stat -c %s "$dir/obj.0") bytes)"
  "$tool" repair "$profile" "$su" "$lost" "$dir/obj"
  if cmp -s "$dir/obj.$lost" "$dir/lost.orig"; then
    echo "rebuilt shard $lost is identical to the lost one"
  else
    echo "MISMATCH after repair" >&2
    exit 1
  fi
}

walk "plugin=jerasure,technique=reed_sol_van,k=4,m=2" 4096 "0,5"
walk "plugin=isa,technique=cauchy,k=6,m=3" 4096 "1,2,7"
walk "plugin=jerasure,technique=cauchy_good,k=4,m=2,packetsize=32" 4096 "3"
walk "plugin=clay,k=4,m=2,d=5" 4096 "1,4"
repair "plugin=jerasure,technique=reed_sol_van,k=4,m=2" 4096 1
repair "plugin=clay,k=4,m=2,d=5" 4096 1
repair "plugin=isa,technique=reed_sol_van,k=10,m=4" 8192 3
repair "plugin=clay,k=10,m=4,d=13" 8192 3
echo
echo "== walk-through finished (bytes_read above: what each code read to rebuild one shard)"
