#!/usr/bin/env python3
"""Replicated pool, RS pool and RS pool with small objects replicated, side by side (issue 30).

One local cluster (etcd and 7 ec-osd on 7 simulated hosts: RS(4,2) places 6 chunks on 6 hosts, and
recovers them on 6 when one is out; bench/op_cost.py's cluster) with three pools
of 32 PGs: `rep` (replicated, size 3), `rs` (RS(4,2), isa) and, with --small NAME=BYTES, `rssmall`
(the same profile with the pool option NAME set to BYTES: objects below it stored as m+1 = 3
copies). Every workload runs on every pool in turn, REPS times (the pools alternate, so that a
noisy machine weighs on all alike):
  write_4k, write_64k      ec-rados bench write -b 4 KiB / 64 KiB, 1 in flight (new objects)
  read_4k, read_64k        ec-rados bench seq over those objects, 1 in flight
  ior_write_1m, ior_read_1m
                           IOR-like: 1 MiB objects written then read in sequence, 4 in flight
                           (bandwidth, MB/s)
  degraded_read_4k, degraded_read_64k
                           ec-rados bench rand over the 4 KiB / 64 KiB objects with osd.1 killed
                           (after every healthy workload), 1 in flight
Then `ec-admin osd out 1`, and the recovery until every PG is active+clean: per pool, the bytes the
OSDs pulled over the network (ecstore_recovery_network_bytes_total{pool}) and rebuilt
(ecstore_recovery_rebuilt_bytes_total{pool}), and their ratio.
Per run, as bench/op_cost.py counts them: ops/s, p50 and p99, the cluster's CPU per op (every
ec-osd and etcd), the client's CPU per op, context switches per op, device bytes written and read
per op (/proc/PID/io of the ec-osds); for degraded reads also the network bytes per read the
primaries fetched to decode (ecstore_pool_degraded_read_network_bytes_total{pool}).
Prints the medians per workload and pool and writes every run to OUT/pool_classes.json.

Usage: bench/pool_classes.sh [--reps N] [--secs S] [--out DIR] [--small NAME=BYTES] BUILD
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_cost  # noqa: E402  (bench/tools/op_cost.py: the cluster and the per-op counters)

HEALTHY = ["write_4k", "write_64k", "read_4k", "read_64k", "ior_write_1m", "ior_read_1m"]
DEGRADED = ["degraded_read_4k", "degraded_read_64k"]
KEYS = ["ops_per_sec", "mb_per_sec", "p50_us", "p99_us", "cluster_cpu_us", "client_cpu_us",
        "context_switches", "device_bytes", "device_read_bytes", "degraded_net_bytes"]


class PoolCluster(op_cost.Cluster):
    def __init__(self, *args, small=None, **kw):
        super().__init__(*args, **kw)
        self.small = small  # (option, bytes) for the rssmall pool, or None
        self.pools = ["rep", "rs"] + (["rssmall"] if small else [])

    def create_pools(self):
        admin = os.path.join(self.bin, "ec-admin")
        self.run(admin, "osd", "pool", "create", "rep", "32", "32", "replicated",
                 stdout=subprocess.DEVNULL)
        self.run(admin, "osd", "erasure-code-profile", "set", "rs42", "plugin=isa", "k=4", "m=2",
                 "crush-failure-domain=host", stdout=subprocess.DEVNULL)
        self.run(admin, "osd", "pool", "create", "rs", "32", "32", "erasure", "rs42",
                 stdout=subprocess.DEVNULL)
        if self.small:
            self.run(admin, "osd", "pool", "create", "rssmall", "32", "32", "erasure", "rs42",
                     stdout=subprocess.DEVNULL)
            self.run(admin, "osd", "pool", "set", "rssmall", self.small[0], self.small[1],
                     stdout=subprocess.DEVNULL)

    def metric_by_pool(self, name):
        """NAME summed over the running OSDs, by its pool label."""
        out = {}
        for text in self.metrics_texts():
            for m in re.finditer(r'^%s\{([^}]*)\} (\d+)' % re.escape(name), text, re.M):
                pool = re.search(r'pool="([^"]*)"', m.group(1))
                if pool:
                    out[pool.group(1)] = out.get(pool.group(1), 0) + int(m.group(2))
        return out

    def status(self):
        admin = os.path.join(self.bin, "ec-admin")
        out = subprocess.run([admin, "-s", "--format", "json"], env=self.env, check=True,
                             capture_output=True, text=True).stdout
        pgmap = json.loads(out).get("pgmap", {})
        states = {s["state_name"]: s["count"] for s in pgmap.get("pgs_by_state", [])}
        return pgmap.get("num_pgs", 0), states


def bench_argv(cluster, pool, secs, *args):
    return [os.path.join(cluster.bin, "ec-rados"), "-p", pool, "bench", str(secs), *args,
            "--format", "json"]


def run_workload(cluster, pool, workload, rep, secs):
    name = {"4k": "o4k", "64k": "o64k", "1m": "o1m"}[workload.rsplit("_", 1)[1]]
    size = {"o4k": 4096, "o64k": 65536, "o1m": 1 << 20}[name]
    inflight = "4" if workload.startswith("ior_") else "1"
    if "write" in workload:
        # Each rep its own objects (--run-name NAME.REP); the reads read rep 1's.
        argv = bench_argv(cluster, pool, secs, "write", "-b", str(size), "-t", inflight,
                          "--no-cleanup", "--run-name", f"{name}.{rep}")
    elif workload.startswith("degraded_"):
        argv = bench_argv(cluster, pool, secs, "rand", "-t", inflight, "--run-name", f"{name}.1")
    else:
        argv = bench_argv(cluster, pool, secs, "seq", "-t", inflight, "--run-name", f"{name}.1")
    before = cluster.metric_by_pool("ecstore_pool_degraded_read_network_bytes_total")
    r = op_cost.measure(cluster, argv, op_cost.rados_parse)
    after = cluster.metric_by_pool("ecstore_pool_degraded_read_network_bytes_total")
    r["mb_per_sec"] = r["ops_per_sec"] * size / 1e6 if r["ops_per_sec"] else None
    r["degraded_net_bytes"] = (after.get(pool, 0) - before.get(pool, 0)) / max(r["ops"], 1) \
        if workload.startswith("degraded_") else None
    return r


def wait_clean(cluster, timeout):
    """Polls `ec-admin -s` until every PG is active+clean, after having seen one that is not (the
    PGs of the killed OSD are degraded until the out moves them: a clean status at once would be
    one from before the kill); returns the seconds it took."""
    t0 = time.time()
    seen_unclean = False
    while time.time() - t0 < timeout:
        n, states = cluster.status()
        if n > 0 and states == {"active+clean": n}:
            if seen_unclean:
                return time.time() - t0
        else:
            seen_unclean = True
        time.sleep(0.5)
    raise RuntimeError(f"not active+clean after {timeout:.0f} s: {states}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:]))
    ap.add_argument("build", help="the build directory to measure (bin/, lib/)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--secs", type=int, default=4, help="seconds per ec-rados run")
    ap.add_argument("--out", default="bench/results/pool_classes")
    ap.add_argument("--small", metavar="NAME=BYTES",
                    help="the pool option that stores smaller objects as copies, and its value, "
                         "for a third pool `rssmall`")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds for the recovery")
    a = ap.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build = os.path.abspath(a.build)
    for p in ("ec-osd", "ec-rados", "ec-admin"):
        if not os.access(os.path.join(build, "bin", p), os.X_OK):
            sys.exit(f"missing {build}/bin/{p}: build it first")
    small = None
    if a.small:
        if "=" not in a.small:
            ap.error("--small takes NAME=BYTES")
        small = tuple(a.small.split("=", 1))
    root = tempfile.mkdtemp(prefix="ec-pool-classes.", dir=os.environ.get("TMPDIR", "/tmp"))
    c = PoolCluster("cluster", build, root, repo, [], small=small, device_size="4G",
                    osds=7)
    runs, recovery = [], {}
    try:
        print(f"== starting the cluster ({c.bin}), pools {', '.join(c.pools)}", flush=True)
        c.start()
        for w in HEALTHY + DEGRADED:
            if w == DEGRADED[0]:
                c.kill_osd(1)
            for rep in range(1, a.reps + 1):
                for pool in c.pools:
                    r = run_workload(c, pool, w, rep, a.secs)
                    r.update(workload=w, pool=pool, rep=rep)
                    runs.append(r)
                    print(f"{w} rep {rep} {pool}: " + ", ".join(
                        f"{k} {r[k]:.1f}" for k in KEYS if r.get(k) is not None), flush=True)
        net0 = c.metric_by_pool("ecstore_recovery_network_bytes_total")
        rebuilt0 = c.metric_by_pool("ecstore_recovery_rebuilt_bytes_total")
        subprocess.run([os.path.join(c.bin, "ec-admin"), "osd", "out", "1"], env=c.env,
                       check=True, stdout=subprocess.DEVNULL)
        secs = wait_clean(c, a.timeout)
        net1 = c.metric_by_pool("ecstore_recovery_network_bytes_total")
        rebuilt1 = c.metric_by_pool("ecstore_recovery_rebuilt_bytes_total")
        for pool in c.pools:
            net = net1.get(pool, 0) - net0.get(pool, 0)
            rebuilt = rebuilt1.get(pool, 0) - rebuilt0.get(pool, 0)
            recovery[pool] = {"network_bytes": net, "rebuilt_bytes": rebuilt,
                              "network_per_rebuilt": net / rebuilt if rebuilt else None}
        recovery["seconds_to_clean"] = secs
    finally:
        c.stop()
        shutil.rmtree(root, ignore_errors=True)
    medians = {}
    for w in HEALTHY + DEGRADED:
        for pool in c.pools:
            rs = [r for r in runs if r["workload"] == w and r["pool"] == pool]
            medians.setdefault(w, {})[pool] = {
                k: statistics.median(r[k] for r in rs) for k in KEYS
                if all(r.get(k) is not None for r in rs)}
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "pool_classes.json")
    with open(path, "w") as f:
        json.dump({"build": build, "small": a.small, "reps": a.reps, "secs": a.secs,
                   "medians": medians, "recovery": recovery, "runs": runs}, f, indent=2)
    print("\n| workload | pool | " + " | ".join(KEYS) + " |\n|" + "---|" * (len(KEYS) + 2))
    for w in HEALTHY + DEGRADED:
        for pool in c.pools:
            m = medians[w][pool]
            print(f"| {w} | {pool} | " +
                  " | ".join(f"{m[k]:.1f}" if k in m else "-" for k in KEYS) + " |")
    print("\n| recovery after osd.1 out | network bytes | rebuilt bytes | network/rebuilt |\n"
          "|---|---|---|---|")
    for pool in c.pools:
        r = recovery[pool]
        ratio = f"{r['network_per_rebuilt']:.2f}" if r["network_per_rebuilt"] else "-"
        print(f"| {pool} | {r['network_bytes']} | {r['rebuilt_bytes']} | {ratio} |")
    print(f"\n(every PG active+clean {recovery['seconds_to_clean']:.1f} s after the out; "
          f"medians of {a.reps}; every run in {path})")


if __name__ == "__main__":
    main()
