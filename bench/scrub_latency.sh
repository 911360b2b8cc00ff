#!/usr/bin/env bash
# Issue 16's scrub figure: the client's 4 KiB read latency (p50, p99) during deep scrubs against
# without them, at the same load, side by side in one run on a local cluster (etcd and 6 ec-osd on
# 6 simulated hosts, an RS(4,2) and a CLAY(4,2,5) pool of 16 PGs each, filled with 64 KiB
# objects). The sides alternate REPS times; each "with" run keeps every PG of both pools under
# deep scrub (`ec-admin pg deep-scrub`, asked again as soon as a PG's previous one is done), with
# the default throttles (osd_max_scrubs 1, osd_scrub_sleep 0: scrubs only yield to client
# operations in flight).
# Usage: bench/scrub_latency.sh [BUILD_DIR (default build)]
#   env: REPS (3), SECS (8: seconds per ec-rados run), FILL (6: seconds of 64 KiB writes per pool),
#        THREADS (1: client ops in flight), SCRUB_SLEEP (osd_scrub_sleep, default 0s),
#        TMPDIR (/tmp: where the cluster goes)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
for p in ec-osd ec-rados ec-admin; do
  [ -x "$build/bin/$p" ] || { echo "missing $build/bin/$p: build it first" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "python3 is needed to summarise" >&2; exit 1; }
reps="${REPS:-3}"
secs="${SECS:-8}"
fill="${FILL:-6}"
threads="${THREADS:-1}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ec-scrub-bench.XXXXXX")"
out="$work/results"
mkdir -p "$out"
scrubber=""
cleanup() {
  [ -n "$scrubber" ] && kill "$scrubber" 2>/dev/null || true
  scripts/cluster.sh stop --dir "$work/cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

scripts/cluster.sh start --dir "$work/cluster" --osds 6 --hosts 6 --grace 3 --down-out 0 \
  --auth none --etcd-tls off --device-size 1G --bin "$build/bin" --osd-opt "osd_scrub_sleep=${SCRUB_SLEEP:-0s}" >/dev/null
echo "osd_scrub_sleep=${SCRUB_SLEEP:-0s}"
export EC_CONF="$work/cluster/ecstore.conf"
admin="$build/bin/ec-admin"
rados="$build/bin/ec-rados"
"$admin" osd erasure-code-profile set rs42 plugin=isa k=4 m=2 crush-failure-domain=host
"$admin" osd erasure-code-profile set clay42 plugin=clay k=4 m=2 d=5 crush-failure-domain=host
"$admin" osd pool create rs 16 16 erasure rs42
"$admin" osd pool create clay 16 16 erasure clay42
echo "== filling: ${fill} s of 64 KiB writes per pool"
for pool in rs clay; do
  "$rados" -p "$pool" bench "$fill" write -b 65536 -t 4 --no-cleanup --run-name fill \
    --format json > "$out/fill_$pool.json"
done
pgids="$("$admin" osd dump --format json | python3 -c '
import json, sys
m = json.load(sys.stdin)
pools = m.get("pools", [])
for p in pools:
    for pg in range(int(p.get("pg_num", 0))):
        print("%d.%x" % (int(p.get("pool", p.get("id", 0))), pg))
')"
[ -n "$pgids" ] || { echo "no PGs found in the map" >&2; exit 1; }
endpoints="$(sed -n 's/^etcd_endpoints *= *//p' "$EC_CONF" | head -n1)"
deep_done() { cat "$work"/cluster/osd.*.log 2>/dev/null | grep -c "deep-scrub ok" || true; }

# Keeps every PG under deep scrub: asks for each PG again once its last request was served.
scrub_loop() {
  while true; do
    for pg in $pgids; do "$admin" pg deep-scrub "$pg" >/dev/null 2>&1 || true; done
    sleep 1
  done
}

for r in $(seq "$reps"); do
  echo "== round $r: without scrubs, then with"
  "$rados" -p rs bench "$secs" rand -b 4096 -t "$threads" --run-name fill --format json \
    > "$out/quiet.$r.json"
  before="$(deep_done)"
  scrub_loop & scrubber=$!
  sleep 1
  "$rados" -p rs bench "$secs" rand -b 4096 -t "$threads" --run-name fill --format json \
    > "$out/scrub.$r.json"
  kill "$scrubber"; wait "$scrubber" 2>/dev/null || true; scrubber=""
  echo $(( $(deep_done) - before )) > "$out/scrubs.$r"
  # No scrub may run into the next quiet run: the requests not served yet go, and the scrubs in
  # progress end (no new "deep-scrub ok" for 2 s).
  etcdctl --endpoints="$endpoints" del --prefix /ecstore/scrub_requests/ >/dev/null
  last=-1
  while [ "$last" != "$(deep_done)" ]; do last="$(deep_done)"; sleep 2; done
done

python3 - "$out" "$reps" <<'PY'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
def load(name):
    return [json.load(open(f"{out}/{name}.{r}.json")) for r in range(1, reps + 1)]
q, s = load("quiet"), load("scrub")
scrubs = [int(open(f"{out}/scrubs.{r}").read()) for r in range(1, reps + 1)]
def med(js, key):
    return statistics.median(j[key] for j in js)
print("| round | ops/s quiet | ops/s scrub | p50 quiet (us) | p50 scrub (us) | p99 quiet (us) | "
      "p99 scrub (us) | p99 ratio | deep scrubs done |")
print("|---|---|---|---|---|---|---|---|---|")
for r in range(reps):
    print(f"| {r + 1} | {q[r]['average_iops']:.0f} | {s[r]['average_iops']:.0f} | "
          f"{q[r]['latency_p50_s'] * 1e6:.0f} | {s[r]['latency_p50_s'] * 1e6:.0f} | "
          f"{q[r]['latency_p99_s'] * 1e6:.0f} | {s[r]['latency_p99_s'] * 1e6:.0f} | "
          f"{s[r]['latency_p99_s'] / q[r]['latency_p99_s']:.2f} | {scrubs[r]} |")
p99q, p99s = med(q, "latency_p99_s"), med(s, "latency_p99_s")
print(f"median p99: quiet {p99q * 1e6:.0f} us, during deep scrubs {p99s * 1e6:.0f} us: "
      f"ratio {p99s / p99q:.2f}; median p50 ratio "
      f"{med(s, 'latency_p50_s') / med(q, 'latency_p50_s'):.2f}; "
      f"mismatches {sum(j.get('mismatches', 0) for j in q + s)}")
PY
