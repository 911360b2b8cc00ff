#!/usr/bin/env bash
# The main job on its embedded default: installs what is needed, builds, then walks through
# ec-tool on a few profiles: encode a file, lose shards, decode from what is left, check the
# bytes, and (for CLAY) repair a lost shard from the planned sub-chunks, printing what was read.
# Then a local cluster on loopback: six ec-osd daemons, each on a 256 MiB file standing in for an
# NVMe device, hold the six shards of a CLAY object; one daemon is killed, the object is read back
# degraded from the survivors, the lost shard is rebuilt onto a replacement OSD, and the daemons'
# metrics and status are shown.
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

# ---- a local cluster on loopback -------------------------------------------------------------
osd_bin="$root/build/bin/ec-osd"
client="$root/build/bin/ec-osd-client"
cl="$work/cluster"
mkdir -p "$cl"
cat > "$cl/ecstore.conf" <<CONF
# A local ecstore cluster: every OSD keeps its store under osd data; ports are kernel-chosen.
[global]
osd data = $cl/osd-\$id
bluestore block size = 256M
osd port = 0
osd metrics port = 0
log file = $cl/osd.\$id.log
CONF
declare -A osd_pid osd_port osd_mport
start_osd() {  # id
  local id="$1"
  "$osd_bin" -c "$cl/ecstore.conf" -i "$id" > "$cl/ready.$id" 2>>"$cl/osd.$id.stderr" &
  osd_pid[$id]=$!
  for _ in $(seq 1 200); do
    if grep -q '"event":"ready"' "$cl/ready.$id" 2>/dev/null; then break; fi
    if ! kill -0 "${osd_pid[$id]}" 2>/dev/null; then
      echo "ec-osd $id did not start:" >&2; cat "$cl/osd.$id.stderr" >&2; exit 1
    fi
    sleep 0.05
  done
  osd_port[$id]="$(sed -E 's/.*"port":([0-9]+).*/\1/' "$cl/ready.$id")"
  osd_mport[$id]="$(sed -E 's/.*"metrics_port":([0-9]+).*/\1/' "$cl/ready.$id")"
  echo "osd.$id up: 127.0.0.1:${osd_port[$id]}, metrics http://127.0.0.1:${osd_mport[$id]}/metrics"
}
http_get() {  # port path: the body of an HTTP GET on loopback (bash's /dev/tcp, no curl needed)
  exec 3<>"/dev/tcp/127.0.0.1/$1"
  printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$2" >&3
  sed '1,/^\r$/d' <&3
  exec 3<&-
}
stop_all() {
  for id in "${!osd_pid[@]}"; do kill -TERM "${osd_pid[$id]}" 2>/dev/null || true; done
  for id in "${!osd_pid[@]}"; do wait "${osd_pid[$id]}" 2>/dev/null || true; done
}
trap 'stop_all; [ "$cleanup" -eq 1 ] && rm -rf "$work"' EXIT

echo
echo "== local cluster: six ec-osd daemons on loopback (config $cl/ecstore.conf)"
for id in 0 1 2 3 4 5 6; do "$osd_bin" -c "$cl/ecstore.conf" -i "$id" --mkfs >/dev/null; done
for id in 0 1 2 3 4 5; do start_osd "$id"; done

profile="plugin=clay,k=4,m=2,d=5"
cp "$object" "$cl/obj"
"$tool" encode "$profile" 4096 0,1,2,3,4,5 "$cl/obj"
cp "$cl/obj.1" "$cl/orig.1"
for i in 0 1 2 3 4 5; do
  "$client" --osd "127.0.0.1:${osd_port[$i]}" put pg.1 obj "$i" "$cl/obj.$i" --version 1 \
    --attr "profile=$profile"
done
echo "kill -9 osd.1 (its shard is now lost)"
kill -KILL "${osd_pid[1]}"; wait "${osd_pid[1]}" 2>/dev/null || true; unset 'osd_pid[1]'
mkdir -p "$cl/read"
for i in 0 2 3 4 5; do
  "$client" --osd "127.0.0.1:${osd_port[$i]}" get pg.1 obj "$i" "$cl/read/obj.$i" >/dev/null
done
"$tool" decode "$profile" 4096 0,2,3,4,5 "$cl/read/obj"
if cmp -s -n "$(stat -c %s "$object")" "$cl/read/obj" "$object"; then
  echo "degraded read from osd.0,2,3,4,5 matches the original object"
else
  echo "MISMATCH in the degraded read" >&2; exit 1
fi
rm -f "$cl/obj.1"
"$tool" repair "$profile" 4096 1 "$cl/obj"
start_osd 6
"$client" --osd "127.0.0.1:${osd_port[6]}" put pg.1 obj 1 "$cl/obj.1" --version 1 \
  --attr "profile=$profile"
"$client" --osd "127.0.0.1:${osd_port[6]}" get pg.1 obj 1 "$cl/check.1" >/dev/null
if cmp -s "$cl/check.1" "$cl/orig.1"; then
  echo "shard 1 rebuilt onto osd.6 and read back identical to the lost one"
else
  echo "MISMATCH in the rebuilt shard" >&2; exit 1
fi
"$client" --osd "127.0.0.1:${osd_port[6]}" stat pg.1 obj 1
echo "-- osd.0 metrics (excerpt):"
http_get "${osd_mport[0]}" /metrics | grep -E '^ecstore_osd_(ops_total|op_bytes_total\{op="(write|read)"|checksum)'
echo "-- osd.6 status:"
http_get "${osd_mport[6]}" /status | head -c 400; echo " ..."
stop_all
osd_pid=()
echo "== cluster stopped (SIGTERM); logs in $cl/osd.*.log"
