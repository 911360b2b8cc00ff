#!/usr/bin/env bash
# The three ratios of issue 6, measured side by side in one run, alternating the two sides of each
# comparison REPS times (medians over the repetitions):
#   1. Empty request round trip, one in flight: ec-osd-bench "(0 0)" Ping p50 through a real
#      ec-osd on loopback / tcp-pingpong p50 with 48-byte messages each way (an empty Ping frame is
#      44 bytes out and 49 back).                                               target <= 2
#   2. 1 MiB shard writes: ec-osd-bench --shard-write 1M through the daemon (durable: the reply
#      comes after the store's commit) MB/s / ec-store-bench -R U -s 1M MB/s on a device file in
#      the same folder, no network; both with DEPTH operations in flight.      target >= 0.7
#   3. 4 KiB shard reads, one in flight: ec-osd-bench --shard-read 4K p50 through the daemon
#      minus ec-store-bench fetch p50 (qd 1) on the same kind of device file. target <= +60 us
# Usage: bench/compare_osd.sh [BUILD_DIR (default build)]
#   env: REPS (5), DEPTH (4), WORKDIR (/tmp: device files of 2 GiB go there)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
for p in ec-osd ec-osd-bench ec-store-bench tcp-pingpong; do
  [ -x "$build/bin/$p" ] || { echo "missing $build/bin/$p: build it first" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "python3 is needed to summarise" >&2; exit 1; }
reps="${REPS:-5}"
depth="${DEPTH:-4}"
work="$(mktemp -d "${WORKDIR:-/tmp}/ec-osd-compare.XXXXXX")"
out="$work/results"
mkdir -p "$out"
osd_pid=""
cleanup() {
  if [ -n "$osd_pid" ]; then kill -TERM "$osd_pid" 2>/dev/null || true; wait "$osd_pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/ecstore.conf" <<CONF
[global]
osd data = $work/osd-\$id
bluestore block size = 2G
osd port = 0
osd metrics port = 0
log file = $work/osd.\$id.log
CONF

start_osd() {
  rm -rf "$work/osd-0"
  "$build/bin/ec-osd" -c "$work/ecstore.conf" -i 0 --mkfs >/dev/null
  "$build/bin/ec-osd" -c "$work/ecstore.conf" -i 0 >"$work/ready" 2>>"$work/osd.stderr" &
  osd_pid=$!
  for _ in $(seq 1 400); do
    grep -q '"event":"ready"' "$work/ready" 2>/dev/null && break
    kill -0 "$osd_pid" 2>/dev/null || { cat "$work/osd.stderr" >&2; exit 1; }
    sleep 0.05
  done
  port="$(sed -E 's/.*"port":([0-9]+).*/\1/' "$work/ready")"
}
stop_osd() {
  kill -TERM "$osd_pid"; wait "$osd_pid" || true; osd_pid=""
}
store_bench() {  # name, then ec-store-bench options
  local name="$1"; shift
  rm -rf "$work/sdev" "$work/sdb"
  "$build/bin/ec-store-bench" --device "$work/sdev" --db "$work/sdb" --device-size $((2 << 30)) \
    --json "$out/$name.$rep.json" "$@" >/dev/null
  rm -rf "$work/sdev" "$work/sdb"
}

for rep in $(seq 1 "$reps"); do
  echo "== repetition $rep/$reps" >&2
  "$build/bin/tcp-pingpong" --size 48 --iterations 20000 --json >"$out/tcp.$rep.json"
  start_osd
  "$build/bin/ec-osd-bench" --endpoints "127.0.0.1:$port" --message-sizes "(0 0)" \
    --max-inflight-rpcs 1 --repetitions 20000 --json >"$out/ping.$rep.json"
  "$build/bin/ec-osd-bench" --endpoints "127.0.0.1:$port" --message-sizes "" \
    --shard-write 1M --objects 256 --inflight "$depth" --shard-ops 256 --json >"$out/osd_w1m.$rep.json"
  "$build/bin/ec-osd-bench" --endpoints "127.0.0.1:$port" --message-sizes "" \
    --shard-write 4K --shard-read 4K --objects 5000 --inflight 1 --shard-ops 5000 --json \
    >"$out/osd_r4k.$rep.json"
  stop_osd
  store_bench store_w1m -R U -o 256 -s 1048576 -d "$depth"
  store_bench store_r4k -R "U F" -o 5000 -s 4096 -d 1
done

python3 - "$out" "$reps" "$depth" <<'PY'
import json, statistics, sys
out, reps, depth = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(name, rep):
    with open(f"{out}/{name}.{rep}.json") as f:
        return json.load(f)
def store(name, rep, op):
    return next(r for r in load(name, rep)["results"] if r["op"] == op)
rows = {"ping": [], "w1m": [], "r4k": []}
for rep in range(1, reps + 1):
    tcp = load("tcp", rep)["latency_us"]["p50"]
    ping = load("ping", rep)["message_sizes"][0]["latency_us"]["p50"]
    rows["ping"].append((ping, tcp))
    w = load("osd_w1m", rep)["shard_write"]
    osd_mb = w["bandwidth_MiBps"] * 1048576 / 1e6
    rows["w1m"].append((osd_mb, store("store_w1m", rep, "update")["mb_per_sec"]))
    r = load("osd_r4k", rep)["shard_read"]["latency_us"]["p50"]
    rows["r4k"].append((r, store("store_r4k", rep, "fetch")["lat_us"]["p50"]))
desc = {
    "ping": ("empty RPC round trip p50 us (osd / tcp)", "ratio", "<= 2"),
    "w1m": (f"1 MiB shard writes qd{depth} MB/s (osd / store)", "ratio", ">= 0.7"),
    "r4k": ("4 KiB shard read qd1 p50 us (osd - store)", "diff", "<= +60 us"),
}
summary = {}
print(f"{'measure':<44} {'osd':>9} {'base':>9} {'result':>8} {'min-max':>15} target")
for k, vals in rows.items():
    kind = desc[k][1]
    res = [a / b if kind == "ratio" else a - b for a, b in vals]
    med = statistics.median(res)
    a = statistics.median(v[0] for v in vals)
    b = statistics.median(v[1] for v in vals)
    print(f"{desc[k][0]:<44} {a:>9.1f} {b:>9.1f} {med:>8.2f} {min(res):>7.2f}-{max(res):<7.2f} {desc[k][2]}")
    summary[k] = {"what": desc[k][0], "osd_median": a, "baseline_median": b, kind + "_median": med,
                  "min": min(res), "max": max(res), "target": desc[k][2], "repetitions": reps}
print(json.dumps(summary, indent=2))
PY
