#!/usr/bin/env bash
# Runs ec-store-bench and fio on the same device file in the same run, alternating them REPS times
# (each repetition runs fio then the store for every measure), and prints the four ratios of
# issue 5 (medians over the repetitions) plus a JSON summary. Each pair uses the same block size,
# the same queue depth and the same device file (laid down in full first):
#   1. 4 KiB durable write, qd 1: store update p50 (one Apply: write + commit, acknowledged when
#      durable) / fio's p50 of one 4 KiB O_DIRECT random write + fdatasync (psync), taken as write
#      clat p50 + fdatasync p50 (fio reports the two separately).           target <= 1.5
#   2. 4 KiB read, qd 1: store fetch p50 (one Read call) / fio psync O_DIRECT random read clat p50.
#                                                                           target <= 1.3
#   3. 4 KiB random read, qd 32: store fetch op/s with at most 32 reads in flight from two threads
#      (each submits ReadMany batches of 16 as one io_uring submission and the next batch once all
#      16 completed) / fio io_uring iodepth 32 IOPS from one job (fio refills each slot as soon as
#      it completes, so it averages closer to 32 in flight than the store does).
#                                                                           target >= 0.8
#   4. 1 MiB durable writes, qd $W1M_DEPTH (default 4): store update MB/s with that many concurrent
#      writers (each 1 MiB Apply durable when acknowledged; group commit shares the flushes) / fio
#      sequential O_DIRECT 1 MiB writes, io_uring, iodepth $W1M_DEPTH, fsync at the end.
#                                                                           target >= 0.8
#      Also printed, no target: the same store figure against fio writing the same way but
#      durable like the store (fdatasync after every W1M_DEPTH writes, i.e. per group of that
#      many concurrent writes), to separate the store's overhead from the cost of the flushes.
# Usage: bench/compare_store_fio.sh [BUILD_DIR (default build)]
#        env: REPS (5), WORKDIR (/tmp), SIZE (1G), W1M_DEPTH (4)
# Needs fio (Debian package fio) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bench="$build/bin/ec-store-bench"
[ -x "$bench" ] || { echo "missing $bench: build the ec-store-bench target first" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 1; }
reps="${REPS:-5}"
size="${SIZE:-1G}"
w1m_depth="${W1M_DEPTH:-4}"
work="$(mktemp -d "${WORKDIR:-/tmp}/ec-store-vs-fio.XXXXXX")"
trap 'rm -rf "$work"' EXIT
dev="$work/dev"
out="$work/results"
mkdir -p "$out"

# Lay the whole file down once so that neither side reads unwritten (zero-filled) extents.
fio --name=prefill --filename="$dev" --size="$size" --rw=write --bs=1M --direct=1 \
    --ioengine=io_uring --iodepth=8 --end_fsync=1 --output-format=json >/dev/null

fio_run() {  # name, then fio options
  local name="$1"; shift
  fio --name="$name" --filename="$dev" --size="$size" --direct=1 --output-format=json \
      --randrepeat=0 "$@" >"$out/$name.$rep.json"
}
store_run() {  # name, then ec-store-bench options
  local name="$1"; shift
  "$bench" --device "$dev" --db "$work/db" --json "$out/$name.$rep.json" "$@" >/dev/null
}

for rep in $(seq 1 "$reps"); do
  echo "== repetition $rep/$reps" >&2
  fio_run fio_w4k --rw=randwrite --bs=4k --fdatasync=1 --ioengine=psync --number_ios=2000
  store_run store_w4k -R "U" -o 2000 -s 4096 -d 1
  fio_run fio_r4k --rw=randread --bs=4k --ioengine=psync --number_ios=5000
  store_run store_r4k -R "U F" -o 5000 -s 4096 -d 1 --no-durable
  fio_run fio_r4k32 --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 --number_ios=50000
  store_run store_r4k32 -R "U F" -o 10000 -s 4096 -d 32 --fetch-threads 2 --no-durable \
      --passes 5
  fio_run fio_w1m --rw=write --bs=1M --ioengine=io_uring --iodepth="$w1m_depth" --end_fsync=1 \
      --number_ios=512
  store_run store_w1m -R "U" -o 512 -s 1048576 -d "$w1m_depth"
  fio_run fio_w1m_sync --rw=write --bs=1M --ioengine=io_uring --iodepth="$w1m_depth" \
      --fdatasync="$w1m_depth" --number_ios=512
done

python3 - "$out" "$reps" "$w1m_depth" <<'PY'
import json, statistics, sys
out, reps, w1m_depth = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(name, rep):
    with open(f"{out}/{name}.{rep}.json") as f:
        return json.load(f)
def fio_job(name, rep):
    return load(name, rep)["jobs"][0]
def p50_us(section):
    return section["percentile"]["50.000000"] / 1000.0
def store(name, rep, op):
    return next(r for r in load(name, rep)["results"] if r["op"] == op)
rows = {"w4k": [], "r4k": [], "r4k32": [], "w1m": [], "w1m_sync": []}
for rep in range(1, reps + 1):
    j = fio_job("fio_w4k", rep)
    fio_w = p50_us(j["write"]["clat_ns"]) + p50_us(j["sync"]["lat_ns"])
    st_w = store("store_w4k", rep, "update")["lat_us"]["p50"]
    rows["w4k"].append((st_w, fio_w))
    j = fio_job("fio_r4k", rep)
    rows["r4k"].append((store("store_r4k", rep, "fetch")["lat_us"]["p50"], p50_us(j["read"]["clat_ns"])))
    j = fio_job("fio_r4k32", rep)
    rows["r4k32"].append((store("store_r4k32", rep, "fetch")["ops_per_sec"], j["read"]["iops"]))
    j = fio_job("fio_w1m", rep)
    rows["w1m"].append((store("store_w1m", rep, "update")["mb_per_sec"], j["write"]["bw_bytes"] / 1e6))
    j = fio_job("fio_w1m_sync", rep)
    rows["w1m_sync"].append((store("store_w1m", rep, "update")["mb_per_sec"], j["write"]["bw_bytes"] / 1e6))
desc = {
    "w4k": ("4 KiB durable write qd1, p50 us", "<= 1.5"),
    "r4k": ("4 KiB read qd1, p50 us", "<= 1.3"),
    "r4k32": ("4 KiB random read qd32, IOPS", ">= 0.8"),
    "w1m": (f"1 MiB durable write qd{w1m_depth}, MB/s", ">= 0.8"),
    "w1m_sync": (f"  same, fio fdatasync every {w1m_depth}", "(none)"),
}
summary = {}
print(f"{'measure':<34} {'store':>10} {'fio':>10} {'ratio':>7} {'min-max':>13} target")
for k, vals in rows.items():
    ratios = [a / b for a, b in vals]
    med = statistics.median(ratios)
    s = statistics.median(a for a, _ in vals)
    f = statistics.median(b for _, b in vals)
    print(f"{desc[k][0]:<34} {s:>10.1f} {f:>10.1f} {med:>7.2f} "
          f"{min(ratios):>6.2f}-{max(ratios):<6.2f} {desc[k][1]}")
    summary[k] = {"what": desc[k][0], "store_median": s, "fio_median": f, "ratio_median": med,
                  "ratio_min": min(ratios), "ratio_max": max(ratios), "target": desc[k][1],
                  "repetitions": reps}
print(json.dumps(summary, indent=2))
PY
