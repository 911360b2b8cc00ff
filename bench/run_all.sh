#!/usr/bin/env bash
# Regenerates every benchmark result of bench/README.md with one command:
#
#   bench/run_all.sh [--build DIR] [--min-time S] [--repetitions N] [--filter REGEX]
#                    [--skip-ceph] [--skip-bench] [--no-build] [--no-readme]
#
#  1. bench/setup.sh (gnuplot, Ceph's tool) and a Release build of ec-bench, ec-benchmark,
#     ec-tool and the plugins in DIR (default build/);
#  2. ec-bench, every benchmark, --benchmark_repetitions N (default 5) of --benchmark_min_time S
#     (default 0.05) each -> bench/results/ec_bench.json.gz (skip and rounding notes in
#     ec_bench.notes.txt; the console shows the medians as they come);
#  3. bench/compare_ceph.sh -> bench/results/compare_ceph.json (skip with --skip-ceph);
#  4. tables (results/tables.md), target ratios (results/targets.md, targets.json) and plots
#     (results/*.png), then the generated sections of bench/README.md.
# --skip-bench reuses the JSON already in bench/results (to redo tables and plots only);
# --no-build runs the binaries already in DIR.
# The whole run takes about 20 minutes on this 2-core machine.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
MIN_TIME=0.05
REPS=5
FILTER=.
CEPH=1
BENCH=1
README=1
BUILD_STEP=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --min-time) MIN_TIME=$2; shift 2 ;;
    --repetitions) REPS=$2; shift 2 ;;
    --filter) FILTER=$2; shift 2 ;;
    --skip-ceph) CEPH=0; shift ;;
    --skip-bench) BENCH=0; shift ;;
    --no-readme) README=0; shift ;;
    --no-build) BUILD_STEP=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run_all.sh: unknown argument $1 (see --help)" >&2; exit 1 ;;
  esac
done
RESULTS=$ROOT/bench/results
TOOLS=$ROOT/bench/tools
mkdir -p "$RESULTS"

"$ROOT/bench/setup.sh"
if ((BUILD_STEP && (BENCH || CEPH))); then
  [[ -f $BUILD/build.ninja ]] ||
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DECSTORE_BUILD_BENCH=ON >/dev/null
  cmake --build "$BUILD" -j2 --target ec-bench ec-benchmark ec-tool ec_jerasure ec_isa ec_clay ec_lrc ec_shec
fi

if ((BENCH)); then
  echo "run_all.sh: ec-bench (about 12 minutes)" >&2
  "$BUILD/bin/ec-bench" --ec_plugin_dir="$BUILD/lib" \
    --benchmark_filter="$FILTER" \
    --benchmark_min_time="$MIN_TIME" \
    --benchmark_repetitions="$REPS" \
    --benchmark_display_aggregates_only=true \
    --benchmark_out="$RESULTS/ec_bench.json" --benchmark_out_format=json \
    2>"$RESULTS/ec_bench.notes.txt"
  gzip -9f "$RESULTS/ec_bench.json"
fi
if ((CEPH)); then
  echo "run_all.sh: compare_ceph.sh (about 5 minutes)" >&2
  BUILD=$BUILD "$ROOT/bench/compare_ceph.sh" --out "$RESULTS/compare_ceph.json" \
    | tee "$RESULTS/compare_ceph.txt"
fi

compare_args=()
[[ -f $RESULTS/compare_ceph.json ]] && compare_args=(--compare "$RESULTS/compare_ceph.json")
python3 "$TOOLS/tables.py" "$RESULTS/ec_bench.json.gz" --out "$RESULTS/tables.md"
python3 "$TOOLS/targets.py" "$RESULTS/ec_bench.json.gz" "${compare_args[@]}" \
  --markdown "$RESULTS/targets.md" --json "$RESULTS/targets.json"
python3 "$TOOLS/plots.py" "$RESULTS/ec_bench.json.gz" --outdir "$RESULTS"
if ((README)); then
  python3 "$TOOLS/update_readme.py" "$ROOT/bench/README.md" "$RESULTS"
fi
