#!/usr/bin/env bash
# The thrasher's long form (issue 16 item 1): tests/thrash/thrash_test for a given duration.
# A local cluster (etcd, seven ec-osd on hosts h0..h6, a CLAY(4,2,5) and an RS(4,2) pool) runs a
# model-checked workload through the client library while the seeded schedule kills -9 and
# restarts OSDs, marks them out and in, SIGSTOPs them past their grace and continues them, and
# restarts etcd, round after round. It prints the seed first, the counts every 10 s, and at the
# end: operations, acknowledged, reads checked, read errors, mismatches, lost writes; rounds,
# kills, restarts, outs, ins, stops, etcd restarts; and `ec-osd --fsck --deep` of every OSD.
# Exit status: the test's (0 when every check held).
#
# Usage: bench/thrash.sh [--duration 1h|30m|600s|600] [--seed N] [--replicated] [--build DIR]
#                        [--log FILE]
#   --duration  how long to thrash (default 1h); the round in progress then finishes
#   --seed      replay a schedule (default: a random one, printed)
#   --replicated  thrash a replicated pool of 3 copies (issue 30) instead of the two EC pools
#   --build     the build directory (default build); builds thrash_test and what it needs
#   --log       also write the output to FILE (default /tmp/ec-thrash-<seed>.log)
set -euo pipefail
duration=1h
seed=""
build=build
log=""
case_name=ModelCheckedWorkloadSurvivesKillsOutsStopsAndEtcdRestarts
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --log) log="$2"; shift 2 ;;
    --replicated) case_name=ReplicatedPoolSurvivesKillsOutsStopsAndEtcdRestarts; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "thrash.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
# --build and --log are relative to where the script was called from.
build="$(realpath -m "$build")"
[ -z "$log" ] || log="$(realpath -m "$log")"
cd "$(dirname "$0")/.."
case "$duration" in
  *h) secs=$(( ${duration%h} * 3600 )) ;;
  *m) secs=$(( ${duration%m} * 60 )) ;;
  *s) secs=${duration%s} ;;
  *) secs=$duration ;;
esac
[[ "$secs" =~ ^[0-9]+$ ]] || { echo "thrash.sh: bad --duration '$duration'" >&2; exit 2; }
if [ -z "$seed" ]; then seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); fi
[[ "$seed" =~ ^[0-9]+$ ]] || { echo "thrash.sh: bad --seed '$seed'" >&2; exit 2; }
log="${log:-/tmp/ec-thrash-$seed.log}"
if [ ! -f "$build/build.ninja" ]; then cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null; fi
cmake --build "$build" -j2 --target thrash_test ec-osd ec_isa ec_clay >/dev/null
echo "thrash: seed $seed, $secs s, log $log"
ECSTORE_THRASH_SEED="$seed" ECSTORE_THRASH_SECONDS="$secs" EC_PLUGIN_DIR="$build/lib" \
  "$build/bin/thrash_test" --gtest_filter="Thrash.$case_name" 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
