#!/usr/bin/env bash
# The ratios of issue 14, measured side by side in one run on a local cluster (etcd and 6 ec-osd on
# 6 simulated hosts, k=4 m=2 pools with stripe unit 4096), alternating the sides REPS times
# (medians over the repetitions), one operation in flight:
#   1. 4 KiB write p50 through an RS(4,2) pool (ec-rados bench write: the primary encodes, six
#      durable shard writes) / a single OSD's durable 4 KiB shard write p50 (ec-osd-bench
#      --shard-write 4K against one of the same daemons).                        target <= 2
#   2. 4 KiB read p50 through the pool (ec-rados bench seq) / a single OSD's 4 KiB shard read p50
#      (ec-osd-bench --shard-read 4K).                                            target <= 1.5
#   3. With one OSD killed: degraded 4 KiB random read p50, CLAY(4,2,5) / RS(4,2) (ec-rados bench
#      rand over objects written before the kill; reads that hit the lost shard are degraded).
#                                                                                 target <= 1.0
#      Also printed: the degraded reads' network bytes per read in each pool.
# Usage: bench/pool_bench.sh [BUILD_DIR (default build)]
#   env: REPS (3), SECS (4: seconds per ec-rados run), OPS (2000: ec-osd-bench operations),
#        TMPDIR (/tmp: where the cluster and its device files go; a RAM-backed file system there
#        takes the disk's flush latency out of both sides)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
for p in ec-osd ec-osd-bench ec-rados ec-admin; do
  [ -x "$build/bin/$p" ] || { echo "missing $build/bin/$p: build it first" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "python3 is needed to summarise" >&2; exit 1; }
reps="${REPS:-3}"
secs="${SECS:-4}"
ops="${OPS:-2000}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ec-pool-bench.XXXXXX")"
out="$work/results"
mkdir -p "$out"
cleanup() {
  scripts/cluster.sh stop --dir "$work/cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# Without authentication and etcd's TLS (--auth none --etcd-tls off): ec-osd-bench below talks to
# an OSD directly, and these figures are the protocol's own (bench/README.md has auth's cost apart).
scripts/cluster.sh start --dir "$work/cluster" --osds 6 --hosts 6 --grace 3 --down-out 0 \
  --auth none --etcd-tls off --bin "$build/bin" >/dev/null
export EC_CONF="$work/cluster/ecstore.conf"
admin="$build/bin/ec-admin"
rados="$build/bin/ec-rados"
"$admin" osd erasure-code-profile set rs42 plugin=isa k=4 m=2 crush-failure-domain=host
"$admin" osd erasure-code-profile set clay42 plugin=clay k=4 m=2 d=5 crush-failure-domain=host
"$admin" osd pool create rs 32 32 erasure rs42
"$admin" osd pool create clay 32 32 erasure clay42
addr() {  # osd id -> host:port from its ready line
  local line; line="$(grep -m1 '"event":"ready"' "$work/cluster/osd.$1.out")"
  echo "$(echo "$line" | sed -E 's/.*"addr":"([^"]+)".*/\1/'):$(echo "$line" | sed -E 's/.*"port":([0-9]+).*/\1/')"
}
single="$(addr 0)"

echo "== pool vs one OSD, 4 KiB, one in flight ($reps alternations)"
for r in $(seq "$reps"); do
  "$build/bin/ec-osd-bench" --endpoints "$single" --shard-write 4k --inflight 1 --objects 64 \
    --shard-ops "$ops" --json > "$out/osd_write.$r.json"
  "$rados" -p rs bench "$secs" write -b 4096 -t 1 --no-cleanup --run-name "w$r" --format json \
    > "$out/pool_write.$r.json"
  "$build/bin/ec-osd-bench" --endpoints "$single" --shard-read 4k --inflight 1 --objects 64 \
    --shard-ops "$ops" --json > "$out/osd_read.$r.json"
  "$rados" -p rs bench "$secs" seq -b 4096 -t 1 --run-name "w$r" --format json \
    > "$out/pool_read.$r.json"
done

echo "== degraded 4 KiB random reads, CLAY(4,2,5) vs RS(4,2), one OSD down"
"$rados" -p rs bench "$secs" write -b 4096 -t 4 --no-cleanup --run-name deg --format json >/dev/null
"$rados" -p clay bench "$secs" write -b 4096 -t 4 --no-cleanup --run-name deg --format json \
  >/dev/null
kill -KILL "$(cat "$work/cluster/osd.1.pid")"
until "$admin" osd dump --format json | grep -q '"osd":1,[^}]*"up":0'; do sleep 0.2; done
for r in $(seq "$reps"); do
  "$rados" -p clay bench "$secs" rand -b 4096 -t 1 --run-name deg --format json \
    > "$out/deg_clay.$r.json"
  "$rados" -p rs bench "$secs" rand -b 4096 -t 1 --run-name deg --format json \
    > "$out/deg_rs.$r.json"
done

python3 - "$out" "$reps" <<'PY'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
def load(name):
    return [json.load(open(f"{out}/{name}.{r}.json")) for r in range(1, reps + 1)]
def osd_p50(name):  # ec-osd-bench: microseconds
    vals = []
    for j in load(name):
        runs = [v for k, v in j.items() if isinstance(v, dict) and "latency_us" in v]
        runs = runs or [j]
        vals.append(runs[0]["latency_us"]["p50"] / 1e6)
    return statistics.median(vals)
def rados(name, key):
    return statistics.median(j[key] for j in load(name))
w_osd, w_pool = osd_p50("osd_write"), rados("pool_write", "latency_p50_s")
r_osd, r_pool = osd_p50("osd_read"), rados("pool_read", "latency_p50_s")
c, s = rados("deg_clay", "degraded_latency_p50_s"), rados("deg_rs", "degraded_latency_p50_s")
ca, sa = rados("deg_clay", "latency_p50_s"), rados("deg_rs", "latency_p50_s")
print(f"4 KiB write p50: pool {w_pool*1e6:.0f} us, one OSD shard write {w_osd*1e6:.0f} us: "
      f"ratio {w_pool/w_osd:.2f} (target <= 2)")
print(f"4 KiB read p50:  pool {r_pool*1e6:.0f} us, one OSD shard read {r_osd*1e6:.0f} us: "
      f"ratio {r_pool/r_osd:.2f} (target <= 1.5)")
print(f"degraded 4 KiB rand read p50 (the degraded reads only): CLAY {c*1e6:.0f} us, "
      f"RS {s*1e6:.0f} us: ratio {c/s:.2f} (target <= 1.0)")
print(f"  all reads of the same runs (most direct): CLAY {ca*1e6:.0f} us, RS {sa*1e6:.0f} us: "
      f"ratio {ca/sa:.2f}")
for pool in ("clay", "rs"):
    js = load(f"deg_{pool}")
    n = sum(j.get("degraded_reads", 0) for j in js)
    b = sum(j.get("degraded_read_network_bytes", 0) for j in js)
    print(f"  {pool}: {n} degraded reads, {b // max(n, 1)} network bytes per degraded read, "
          f"{sum(j.get('mismatches', 0) for j in js)} mismatches")
PY
