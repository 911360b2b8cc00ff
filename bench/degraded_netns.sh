#!/usr/bin/env bash
# Issue 14's degraded-read comparison on realistic links: a cluster whose hosts are network
# namespaces (bench/netns_cluster.sh: 6 OSD hosts and one etcd/client host, every link tc-limited to
# RATE both ways), an RS(4,2) isa pool and a CLAY(4,2,5) pool per stripe unit, objects of each read
# size written with `ec-rados bench write`, one OSD killed (never marked out), then for each pool
# `ec-rados bench SECS rand -b SIZE -t 1` from the client namespace (behind its own link, as a real
# client), the pools alternated REPS times (medians over the repetitions). Printed per stripe unit
# and read size:
#   p50 of all reads (most are direct: the lost shard holds none of their bytes), CLAY / RS;
#   p50 of the degraded reads only (ec-rados's degraded_latency_p50_s; the overall p50 when an
#   older ec-rados lacks it, and the line says so), CLAY / RS                 target <= 1.0;
#   the degraded reads' network and device bytes per read (the client's ReadResult counters).
# Usage: bench/degraded_netns.sh [BUILD_DIR (default build)]        (as root)
#   env: REPS (3), SECS (4: seconds per ec-rados run), RATE (1gbit), STRIPE_UNITS ("4096"; e.g.
#        "4096 32768"), SIZES ("4096 65536": read sizes, objects of that size), KEEP (1: keep the
#        work directory with every run's JSON)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
for p in ec-osd ec-rados ec-admin; do
  [ -x "$build/bin/$p" ] || { echo "missing $build/bin/$p: build it first" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "python3 is needed to summarise" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "must run as root (network namespaces)" >&2; exit 1; }
reps="${REPS:-3}"
secs="${SECS:-4}"
rate="${RATE:-1gbit}"
sus="${STRIPE_UNITS:-4096}"
sizes="${SIZES:-4096 65536}"
build="$(cd "$build" && pwd)"
work="$(mktemp -d /tmp/ec-degraded-netns.XXXXXX)"
out="$work/results"
mkdir -p "$out"
cluster="$work/cluster"
cleanup() {
  bench/netns_cluster.sh stop --dir "$cluster" >/dev/null 2>&1 || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

bench/netns_cluster.sh start --dir "$cluster" --hosts 6 --rate "$rate" --grace 3 --down-out 0 \
  --bin "$build/bin" >/dev/null
export EC_CONF="$cluster/ecstore.conf"
admin="$build/bin/ec-admin"
client() {  # ec-rados in the client namespace
  bench/netns_cluster.sh exec --dir "$cluster" client "$build/bin/ec-rados" -c "$EC_CONF" "$@"
}
for su in $sus; do
  "$admin" osd erasure-code-profile set "rs42_$su" plugin=isa k=4 m=2 stripe_unit="$su" \
    crush-failure-domain=host
  "$admin" osd erasure-code-profile set "clay42_$su" plugin=clay k=4 m=2 d=5 stripe_unit="$su" \
    crush-failure-domain=host
  "$admin" osd pool create "rs_$su" 32 32 erasure "rs42_$su" 2>&1
  "$admin" osd pool create "clay_$su" 32 32 erasure "clay42_$su" 2>&1
done

echo "== writing objects (${sizes// /, } bytes) to RS(4,2) and CLAY(4,2,5) pools, stripe units ${sus// /, }"
for su in $sus; do
  for size in $sizes; do
    for pool in "rs_$su" "clay_$su"; do
      client -p "$pool" bench "$secs" write -b "$size" -t 4 --no-cleanup --run-name "o$size" \
        --format json > "$out/write_${pool}_$size.json"
    done
  done
done
kill -KILL "$(cat "$cluster/osd.1.pid")"
until "$admin" osd dump --format json | grep -q '"osd":1,[^}]*"up":0'; do sleep 0.2; done

echo "== random reads, one in flight, osd.1 (host h2) down ($reps alternations of CLAY and RS)"
for r in $(seq "$reps"); do
  for su in $sus; do
    for size in $sizes; do
      for code in clay rs; do
        client -p "${code}_$su" bench "$secs" rand -b "$size" -t 1 --run-name "o$size" \
          --format json > "$out/deg_${code}_${su}_$size.$r.json"
      done
    done
  done
done

lscpu | sed -n 's/^Model name: *//p' | head -n 1 > "$out/cpu"
python3 - "$out" "$reps" "$sus" "$sizes" "$rate" <<'PY'
import json, statistics, sys
out, reps, sus, sizes, rate = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split(), sys.argv[5]
def load(name):
    return [json.load(open(f"{out}/{name}.{r}.json")) for r in range(1, reps + 1)]
def p50(js, key):
    return statistics.median(j[key] for j in js)
cpu = open(f"{out}/cpu").read().strip()
flags = open("/proc/cpuinfo").read().split()
isa = "AVX-512 + GFNI" if "avx512f" in flags and "gfni" in flags else ("AVX2" if "avx2" in flags else "no AVX2")
print(f"6 OSD hosts + 1 client/etcd host, links {rate} both ways; {cpu} ({isa}); "
      f"medians of {reps} runs")
for su in sus:
    for size in sizes:
        c, s = load(f"deg_clay_{su}_{size}"), load(f"deg_rs_{su}_{size}")
        ca, sa = p50(c, "latency_p50_s"), p50(s, "latency_p50_s")
        have = all("degraded_latency_p50_s" in j for j in c + s)
        key = "degraded_latency_p50_s" if have else "latency_p50_s"
        cd, sd = p50(c, key), p50(s, key)
        print(f"stripe unit {su}, {size}-byte reads:")
        what = "the degraded reads only" if have else \
            "ec-rados has no degraded_latency_p50_s: ALL reads"
        print(f"  degraded read p50 ({what}): CLAY {cd*1e6:.0f} us, RS {sd*1e6:.0f} us: "
              f"ratio {cd/sd:.2f} (target <= 1.0)")
        print(f"  all reads p50 (most direct): CLAY {ca*1e6:.0f} us, RS {sa*1e6:.0f} us: "
              f"ratio {ca/sa:.2f}")
        for name, js in (("clay", c), ("rs", s)):
            n = sum(j.get("degraded_reads", 0) for j in js)
            t = sum(j.get("total_reads_made", 0) for j in js)
            nb = sum(j.get("degraded_read_network_bytes", 0) for j in js)
            db = sum(j.get("degraded_read_device_bytes", 0) for j in js)
            mm = sum(j.get("mismatches", 0) for j in js)
            print(f"  {name}: {n} of {t} reads degraded, {nb // max(n, 1)} network bytes and "
                  f"{db // max(n, 1)} device bytes per degraded read, {mm} mismatches")
PY
