#!/usr/bin/env bash
# What a 4 KiB pool write costs, two builds side by side in one run (issue 26's before/after, and
# the count issue 27 starts from): two local clusters (etcd and 6 ec-osd on 6 simulated hosts, an
# RS(4,2) isa pool with 4 KiB stripe units), one per build, both up for the whole run; `ec-rados
# bench write -b 4096 -t T` alternates between them REPS times. For each run it reads, before and
# after, from /proc and the OSDs' /metrics:
#   - CPU: utime + stime of every ec-osd and the etcd of that cluster (all threads), and of the
#     ec-rados process itself (the client), in microseconds per write;
#   - context switches: voluntary + nonvoluntary of every thread of those processes, per write;
#   - requests the OSDs received per write (ecstore_osd_ops_total over every op, the shard
#     operations, plus ecstore_pool_ops_total, the object operations): each is one message in and
#     one reply out; a sub-operation a primary serves for itself in process is not a message;
#   - device bytes written (write_bytes of /proc/PID/io of the ec-osd processes) per write;
#   - the write's p50 latency and ops/s as ec-rados reports them.
# Prints the medians over the repetitions, side by side, and the ratios NEW/BASE; writes
# everything to OUT/write_cost.json.
#
# Usage: bench/write_cost.sh BASE_BUILD NEW_BUILD [OUT]
#   BASE_BUILD, NEW_BUILD: build directories (with bin/ec-osd, ec-rados, ec-admin and the plugins
#   in lib/), e.g. a worktree of the commit before the change and this one's build/.
#   env: REPS (5), SECS (4: seconds per ec-rados run), THREADS (1: writes in flight), TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# -ge 2 ] || { usage >&2; exit 1; }
base="$(realpath "$1")"
new="$(realpath "$2")"
out="${3:-bench/results/write_cost}"
reps="${REPS:-5}"
secs="${SECS:-4}"
threads="${THREADS:-1}"
for b in "$base" "$new"; do
  for p in ec-osd ec-rados ec-admin; do
    [ -x "$b/bin/$p" ] || { echo "missing $b/bin/$p: build it first" >&2; exit 1; }
  done
done
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 1; }
mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/ec-write-cost.XXXXXX")"
cleanup() {
  for side in base new; do
    scripts/cluster.sh stop --dir "$work/$side" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

declare -A BIN=([base]="$base/bin" [new]="$new/bin")
for side in base new; do
  echo "== starting the $side cluster (${BIN[$side]})"
  scripts/cluster.sh start --dir "$work/$side" --osds 6 --hosts 6 --grace 3 --down-out 0 \
    --bin "${BIN[$side]}" >/dev/null
  EC_CONF="$work/$side/ecstore.conf" "${BIN[$side]}/ec-admin" osd erasure-code-profile set rs42 \
    plugin=isa k=4 m=2 crush-failure-domain=host
  EC_CONF="$work/$side/ecstore.conf" "${BIN[$side]}/ec-admin" osd pool create rs 32 32 erasure rs42
done

# One snapshot of a cluster: CPU ticks, context switches and device bytes written of its
# processes, and the OSDs' request counters, as one JSON object.
snapshot() {  # side
  local dir="$work/$1"
  python3 - "$dir" <<'PY'
import glob, json, os, re, sys, urllib.request
d = sys.argv[1]
pids = [int(open(f).read()) for f in glob.glob(f"{d}/osd.*.pid") + [f"{d}/etcd.pid"]]
ticks = os.sysconf("SC_CLK_TCK")
cpu_us = ctx = wbytes = 0
for pid in pids:
    try:
        stat = open(f"/proc/{pid}/stat").read()
        fields = stat[stat.rindex(")") + 2:].split()
        cpu_us += (int(fields[11]) + int(fields[12])) * 1_000_000 // ticks
        for t in glob.glob(f"/proc/{pid}/task/*/status"):
            for line in open(t):
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    ctx += int(line.split()[1])
        if not str(pid) == open(f"{d}/etcd.pid").read().strip():
            for line in open(f"/proc/{pid}/io"):
                if line.startswith("write_bytes:"):
                    wbytes += int(line.split()[1])
    except FileNotFoundError:
        pass
requests = 0
for out in glob.glob(f"{d}/osd.*.out"):
    ready = next((json.loads(l) for l in open(out) if '"event":"ready"' in l), None)
    if ready is None:
        continue
    text = urllib.request.urlopen(f"http://127.0.0.1:{ready['metrics_port']}/metrics").read().decode()
    for m in re.finditer(r'^ecstore_(osd_ops_total|pool_ops_total)\{[^}]*\} (\d+)', text, re.M):
        requests += int(m.group(2))
print(json.dumps({"cpu_us": cpu_us, "ctx": ctx, "device_bytes": wbytes, "requests": requests}))
PY
}

: > "$work/runs.jsonl"
for r in $(seq "$reps"); do
  for side in base new; do
    before="$(snapshot "$side")"
    TIMEFORMAT='%U %S'
    { time EC_CONF="$work/$side/ecstore.conf" "${BIN[$side]}/ec-rados" -p rs bench "$secs" write \
        -b 4096 -t "$threads" --run-name "r$r" --format json > "$work/bench.json" 2>/dev/null; } \
      2> "$work/client_time"
    after="$(snapshot "$side")"
    python3 - "$side" "$r" "$before" "$after" "$work/bench.json" "$work/client_time" \
      >> "$work/runs.jsonl" <<'PY'
import json, sys
side, rep, before, after = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
bench = json.load(open(sys.argv[5]))
user, sys_ = (float(x) for x in open(sys.argv[6]).read().split()[-2:])
ops = max(1, int(bench.get("total_writes_made", bench.get("ops", 0)) or 0))
d = {k: after[k] - before[k] for k in before}
print(json.dumps({
    "side": side, "rep": rep, "writes": ops,
    "ops_per_sec": bench.get("iops", bench.get("average_iops")),
    "latency_p50_us": bench["latency_p50_s"] * 1e6,
    "cluster_cpu_us_per_write": d["cpu_us"] / ops,
    "client_cpu_us_per_write": (user + sys_) * 1e6 / ops,
    "context_switches_per_write": d["ctx"] / ops,
    "requests_per_write": d["requests"] / ops,
    "device_bytes_per_write": d["device_bytes"] / ops,
}))
PY
    echo "rep $r $side: $(tail -1 "$work/runs.jsonl")"
  done
done

python3 - "$work/runs.jsonl" "$out/write_cost.json" "$base" "$new" "$threads" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
keys = ["ops_per_sec", "latency_p50_us", "cluster_cpu_us_per_write", "client_cpu_us_per_write",
        "context_switches_per_write", "requests_per_write", "device_bytes_per_write"]
med = {s: {k: statistics.median(r[k] for r in runs if r["side"] == s and r[k] is not None)
           for k in keys} for s in ("base", "new")}
json.dump({"base_build": sys.argv[3], "new_build": sys.argv[4], "in_flight": int(sys.argv[5]),
           "medians": med, "runs": runs}, open(sys.argv[2], "w"), indent=2)
print(f"\n4 KiB writes to an RS(4,2) pool, {sys.argv[5]} in flight, medians of "
      f"{len(runs) // 2} alternations")
print(f"{'':30} {'base':>12} {'new':>12} {'new/base':>9}")
for k in keys:
    b, n = med["base"][k], med["new"][k]
    print(f"{k:30} {b:12.1f} {n:12.1f} {n / b if b else float('nan'):9.2f}")
print(f"(written to {sys.argv[2]})")
PY
