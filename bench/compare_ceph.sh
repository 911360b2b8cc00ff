#!/usr/bin/env bash
# Side by side: ecstore's ec-tool against Ceph's ceph-erasure-code-tool, whole processes, on the
# same file in /dev/shm (memory, so the disk is not what is measured).
#
#   bench/compare_ceph.sh [--runs N] [--size-mib N] [--build DIR] [--out FILE] [--only REGEX]
#
# For every profile below: encode the same SIZE MiB file (default 256) into its shards with both
# programs, then decode it from the last k shards (the first m chunks lost: the most work), and
# time each process. The two programs alternate (run 1 Ceph first, run 2 ecstore first, ...),
# RUNS times each (default 5). Printed per profile and operation: median and min-max of each
# program, and the ratio median(ceph) / median(ecstore) (> 1: ecstore faster). In run 1 the shard
# files of both programs, and their decoded outputs, are compared byte for byte (cmp); a
# difference is reported and makes the script exit 1.
#
# Stripe units: each profile uses the smallest valid stripe unit >= 4096 (what
# `ec-tool calc-chunk-size PROFILE k*4096` returns), because Ceph 16.2's tool aborts on a stripe
# unit the plugin rounds up. Ceph's tool is installed with apt-get (package ceph-osd) if missing;
# CEPH_CONF points at an empty file to keep it quiet.
#
# Results: a table on stdout and JSON in --out (default bench/results/compare_ceph.json).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
RUNS=5
SIZE_MIB=256
OUT=$ROOT/bench/results/compare_ceph.json
ONLY=.

while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) RUNS=$2; shift 2 ;;
    --size-mib) SIZE_MIB=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "compare_ceph.sh: unknown argument $1 (see --help)" >&2; exit 1 ;;
  esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "compare_ceph.sh: --runs wants a positive number" >&2; exit 1; }
[[ $SIZE_MIB =~ ^[1-9][0-9]*$ ]] || { echo "compare_ceph.sh: --size-mib wants a positive number" >&2; exit 1; }

# name|profile, in the order printed. (8,3)-class: CLAY 8+3 needs d=10 and 81 sub-chunks.
PROFILES=(
  "jerasure_reed_sol_van_4_2|plugin=jerasure,technique=reed_sol_van,k=4,m=2"
  "jerasure_reed_sol_van_8_3|plugin=jerasure,technique=reed_sol_van,k=8,m=3"
  "jerasure_cauchy_good_4_2|plugin=jerasure,technique=cauchy_good,k=4,m=2"
  "jerasure_cauchy_good_8_3|plugin=jerasure,technique=cauchy_good,k=8,m=3"
  "isa_reed_sol_van_4_2|plugin=isa,technique=reed_sol_van,k=4,m=2"
  "isa_reed_sol_van_8_3|plugin=isa,technique=reed_sol_van,k=8,m=3"
  "clay_4_2_5|plugin=clay,k=4,m=2,d=5"
  "clay_8_3_10|plugin=clay,k=8,m=3,d=10"
)

if ! command -v ceph-erasure-code-tool >/dev/null 2>&1; then
  echo "compare_ceph.sh: installing Ceph's tool (apt-get install ceph-osd)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq ceph-osd >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq ceph-osd >/dev/null; }
fi
CEPH_TOOL=$(command -v ceph-erasure-code-tool)
EC_TOOL=$BUILD/bin/ec-tool
if [[ ! -x $EC_TOOL || ! -e $BUILD/lib/libec_clay.so ]]; then
  [[ -f $BUILD/build.ninja || -f $BUILD/Makefile ]] ||
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD" -j2 --target ec-tool ec_jerasure ec_isa ec_clay >/dev/null
fi

WORK=$(mktemp -d /dev/shm/ecstore-compare.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
: >"$WORK/empty.conf"
export CEPH_CONF=$WORK/empty.conf
mkdir -p "$WORK/ceph" "$WORK/ecstore" "$(dirname "$OUT")"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$WORK/input"
TIMES=$WORK/times.tsv
CHECKS=$WORK/checks.tsv
: >"$TIMES"
: >"$CHECKS"

tool_of() { if [[ $1 == ceph ]]; then echo "$CEPH_TOOL"; else echo "$EC_TOOL"; fi; }

# timed PROGRAM OP PROFILE SU SHARDS NAME RUN: runs one whole process in its directory.
timed() {
  local prog=$1 op=$2 profile=$3 su=$4 shards=$5 name=$6 run=$7 tool t0 t1
  tool=$(tool_of "$prog")
  t0=$EPOCHREALTIME
  if ! (cd "$WORK/$prog" && "$tool" "$op" "$profile" "$su" "$shards" obj >"$WORK/$prog.log" 2>&1); then
    echo "compare_ceph.sh: $prog $op $profile failed:" >&2
    cat "$WORK/$prog.log" >&2
    exit 1
  fi
  t1=$EPOCHREALTIME
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$prog" "$op" "$run" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')" >>"$TIMES"
}

seq_list() { local first=$1 last=$2 out="" i; for ((i = first; i <= last; i++)); do out+="${out:+,}$i"; done; echo "$out"; }

for entry in "${PROFILES[@]}"; do
  name=${entry%%|*}
  profile=${entry#*|}
  [[ $name =~ $ONLY ]] || continue
  k=$("$EC_TOOL" validate-profile "$profile" data_chunk_count)
  n=$("$EC_TOOL" validate-profile "$profile" chunk_count)
  m=$((n - k))
  su=$("$EC_TOOL" calc-chunk-size "$profile" $((k * 4096)))
  ceph_su=$("$CEPH_TOOL" calc-chunk-size "$profile" $((k * 4096)) 2>/dev/null || echo "?")
  if [[ $ceph_su != "$su" ]]; then
    echo "compare_ceph.sh: $name: ecstore's chunk size $su differs from Ceph's $ceph_su" >&2
    printf '%s\tchunk_size\tdiffer\n' "$name" >>"$CHECKS"
  fi
  all=$(seq_list 0 $((n - 1)))
  avail=$(seq_list "$m" $((n - 1)))
  printf '%s\tprofile\t%s\tstripe_unit=%s\tdecode_from=%s\n' "$name" "$profile" "$su" "$avail" >>"$CHECKS"
  echo "== $name: $profile stripe_unit=$su, decode from shards $avail" >&2
  for ((run = 1; run <= RUNS; run++)); do
    if ((run % 2)); then order=(ceph ecstore); else order=(ecstore ceph); fi
    for prog in "${order[@]}"; do
      rm -f "$WORK/$prog"/obj*
      cp "$WORK/input" "$WORK/$prog/obj"
      timed "$prog" encode "$profile" "$su" "$all" "$name" "$run"
    done
    if ((run == 1)); then
      same=identical
      for ((i = 0; i < n; i++)); do
        cmp -s "$WORK/ceph/obj.$i" "$WORK/ecstore/obj.$i" || { same="differ (shard $i)"; break; }
      done
      printf '%s\tshards\t%s\n' "$name" "$same" >>"$CHECKS"
    fi
    for prog in "${order[@]}"; do
      rm -f "$WORK/$prog/obj"
      for ((i = 0; i < m; i++)); do rm -f "$WORK/$prog/obj.$i"; done
      timed "$prog" decode "$profile" "$su" "$avail" "$name" "$run"
    done
    if ((run == 1)); then
      same=identical
      cmp -s "$WORK/ceph/obj" "$WORK/ecstore/obj" || same=differ
      cmp -s -n $((SIZE_MIB << 20)) "$WORK/input" "$WORK/ecstore/obj" || same="$same, ecstore output is not the input"
      printf '%s\tdecoded\t%s\n' "$name" "$same" >>"$CHECKS"
    fi
  done
done

python3 "$ROOT/bench/tools/summarize_compare.py" "$TIMES" "$CHECKS" \
  --size-mib "$SIZE_MIB" --runs "$RUNS" --ceph-version "$(dpkg-query -W -f='${Version}' ceph-osd 2>/dev/null || echo unknown)" \
  --out "$OUT"
