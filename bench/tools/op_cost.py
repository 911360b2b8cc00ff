#!/usr/bin/env python3
"""What one small operation costs a local cluster: CPU, context switches, messages, device bytes.

Starts one local cluster per build (etcd and 6 ec-osd on 6 simulated hosts, an RS(4,2) isa pool
and a CLAY(4,2,5) pool of 32 PGs each, 4 KiB stripe units; with an lrc_ workload 8 OSDs on 8 hosts
and an LRC(k=4, m=2, l=3) pool beside them, whose 8 chunks need 8 hosts), all up for the whole
run, and runs each workload on every cluster in turn, REPS times (the builds alternate, so that a
noisy machine weighs on both alike).
Workloads (ec-rados bench, 4 KiB objects):
  write_t1, write_t16      writes to the RS pool, 1 and 16 in flight
  clay_write_t1            writes to the CLAY pool, 1 in flight (its cost against write_t1)
  seq_read_t1              sequential reads of the objects written, 1 in flight
  rand_read_t16            random reads, 16 in flight
  shard_write_t1           one OSD's durable 4 KiB shard write (ec-osd-bench --shard-write 4k
                           against osd.0; its CPU is osd.0's alone)
  rewrite_t1, clay_rewrite_t1
                           4 KiB overwrites at random 4 KiB-aligned offsets inside 64 KiB objects
                           (ec-rados bench rewrite) of the RS and the CLAY pool, 1 in flight
  small_read_t1, clay_small_read_t1
                           4 KiB reads at random 4 KiB-aligned offsets inside the 64 KiB objects
                           (ec-rados bench rand --read-size 4096) of the RS and the CLAY pool, 1
                           in flight: one data chunk each, three in four of them not on the
                           primary (a direct read from that shard's OSD, issue 28, unless the
                           cluster's client has them off: --base-direct-reads-off)
  lrc_write_t1, lrc_rewrite_t1, lrc_small_read_t1
                           write_t1, rewrite_t1 and small_read_t1 on the LRC pool
  shard_read_t1            one OSD's 4 KiB shard read (ec-osd-bench --shard-read 4k against
                           osd.0): what a direct read's p50 is held to
  shard_read_spread_t1     the same shard reads round-robin over every OSD of the cluster (each
                           read wakes another process, as the reads of objects spread over the
                           OSDs do); its CPU is the whole cluster's
  degraded_read_t1, degraded_read_t16
                           random reads with osd.1 killed (the reads that need its shard decode)
Per run, from /proc and the OSDs' /metrics, before and after:
  cluster_cpu_us      utime+stime of every ec-osd and etcd of the cluster (all threads), per op
  client_cpu_us       the benchmark program's own (getrusage of the child), per op
  context_switches    voluntary + nonvoluntary, every thread of those processes, per op
  client_switches     the benchmark program's, per op
  requests            requests the OSDs received (ecstore_osd_ops_total + ecstore_pool_ops_total +
                      ecstore_osd_direct_reads_total + ecstore_osd_read_lease_requests_total),
                      per op; each is one message in and one reply out (a sub-operation an OSD
                      serves itself in process is not a message)
  device_bytes        write_bytes of /proc/PID/io of the ec-osd processes, per op
  device_read_bytes   read_bytes of the same (direct reads reach the device), per op
  sub_writes          SubWrite messages the OSDs received (ecstore_osd_ops_total{op="sub_write"}),
                      per op: the shards a write went to, but for the primary's own shard, which
                      it writes in process when the write changes it
  ops_per_sec, p50_us, p99_us as the benchmark reports them
  threads             context switches and CPU per op by thread name (each run; printed with
                      --threads): which hand-offs a change removed (CPU per thread is counted in
                      clock ticks, so a thread under ~10 ms per run shows 0)
Prints the medians per workload and build (and NEW/BASE ratios with two builds); writes every run
and the medians to OUT/op_cost.json.

Usage: bench/op_cost.sh [--base BUILD] [--reps N] [--secs S] [--out DIR] [--threads]
                        [--workloads a,b,...] [--osd-opt NAME=VALUE ...]
                        [--base-osd-opt NAME=VALUE ...] [--base-padded]
                        [--base-direct-reads-off] [--auth none|cephx]
                        [--base-auth none|cephx] [--etcd-tls on|off] BUILD
--osd-opt sets an ec-osd option in every cluster, --base-osd-opt in the base one only; with --base
naming the same build as BUILD, the run compares two configurations instead of two builds.
--base-padded makes the base cluster's pools padded to whole stripes (no allow_ec_optimizations):
with the same build as BUILD, what Fast EC changes alone. --base-direct-reads-off runs the base
cluster's ec-rados with --direct-reads off (every read through the primary): with the same build,
what direct reads change alone. --auth cephx runs the clusters with authentication (the launcher's
--auth; none by default), --base-auth the base one's: with the same build, what cephx costs.
--etcd-tls on runs etcd over TLS (off by default).
"""
import argparse
import glob
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

WORKLOADS = ["write_t1", "write_t16", "clay_write_t1", "seq_read_t1", "rand_read_t16", "shard_write_t1",
             "rewrite_t1", "clay_rewrite_t1", "small_read_t1", "clay_small_read_t1",
             "shard_read_t1", "shard_read_spread_t1", "degraded_read_t1", "degraded_read_t16", "lrc_write_t1",
             "lrc_rewrite_t1", "lrc_small_read_t1"]
KEYS = ["ops_per_sec", "p50_us", "p99_us", "cluster_cpu_us", "client_cpu_us",
        "context_switches", "client_switches", "requests", "sub_writes", "device_bytes",
        "device_read_bytes"]


class Cluster:
    def __init__(self, name, build, root, repo, osd_opts, padded=False, direct_reads=True,
                 lrc=False, device_size=None, osds=None, auth="none", etcd_tls="off"):
        self.name = name
        self.etcd_tls = etcd_tls  # the launcher's --etcd-tls: on or off
        self.auth = auth  # the launcher's --auth: cephx or none
        self.osds = osds or (8 if lrc else 6)  # on as many hosts
        self.device_size = device_size  # each OSD's device file (the launcher's default if None)
        self.lrc = lrc  # 8 OSDs and an LRC pool
        self.padded = padded
        self.direct_reads = direct_reads
        self.bin = os.path.join(build, "bin")
        self.dir = os.path.join(root, name)
        self.repo = repo
        self.osd_opts = osd_opts
        self.env = dict(os.environ, EC_CONF=os.path.join(self.dir, "ecstore.conf"))

    def run(self, *args, **kw):
        return subprocess.run(list(args), env=self.env, check=True, **kw)

    def osd_bench_auth(self):
        """ec-osd-bench's arguments to reach these OSDs: with cephx, as osd.0 with its keyring
        (shard operations are OSD sub-operations)."""
        if self.auth != "cephx":
            return []
        return ["--auth", "cephx", "--name", "osd.0", "--keyring",
                os.path.join(self.dir, "osd.0.keyring")]

    def start(self):
        self.run(os.path.join(self.repo, "scripts/cluster.sh"), "start", "--dir", self.dir,
                 "--osds", str(self.osds), "--hosts", str(self.osds),
                 "--grace", "3", "--down-out", "0",
                 "--auth", self.auth, "--etcd-tls", self.etcd_tls,
                 *(["--device-size", self.device_size] if self.device_size else []),
                 "--bin", self.bin, *[a for o in self.osd_opts for a in ("--osd-opt", o)],
                 stdout=subprocess.DEVNULL)
        self.create_pools()

    def create_pools(self):
        if self.padded:
            # Pools in the padded layout (no Fast EC): ec-admin reads the default from [global].
            conf = os.path.join(self.dir, "ecstore.conf")
            text = open(conf).read().replace(
                "[global]\n", "[global]\nosd_pool_default_flag_ec_optimizations = false\n", 1)
            open(conf, "w").write(text)
        admin = os.path.join(self.bin, "ec-admin")
        self.run(admin, "osd", "erasure-code-profile", "set", "rs42", "plugin=isa", "k=4", "m=2",
                 "crush-failure-domain=host", stdout=subprocess.DEVNULL)
        self.run(admin, "osd", "pool", "create", "rs", "32", "32", "erasure", "rs42",
                 stdout=subprocess.DEVNULL)
        self.run(admin, "osd", "erasure-code-profile", "set", "clay42", "plugin=clay", "k=4",
                 "m=2", "d=5", "crush-failure-domain=host", stdout=subprocess.DEVNULL)
        self.run(admin, "osd", "pool", "create", "clay", "32", "32", "erasure", "clay42",
                 stdout=subprocess.DEVNULL)
        if self.lrc:
            self.run(admin, "osd", "erasure-code-profile", "set", "lrc423", "plugin=lrc", "k=4",
                     "m=2", "l=3", "crush-failure-domain=host", stdout=subprocess.DEVNULL)
            self.run(admin, "osd", "pool", "create", "lrc", "32", "32", "erasure", "lrc423",
                     stdout=subprocess.DEVNULL)

    def stop(self):
        subprocess.run([os.path.join(self.repo, "scripts/cluster.sh"), "stop", "--dir", self.dir],
                       env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def pid(self, what):
        try:
            return int(open(os.path.join(self.dir, f"{what}.pid")).read())
        except (FileNotFoundError, ValueError):
            return None

    def osd_pids(self):
        out = []
        for f in glob.glob(os.path.join(self.dir, "osd.*.pid")):
            p = self.pid(os.path.basename(f)[:-4])
            if p is not None and os.path.exists(f"/proc/{p}"):
                out.append(p)
        return out

    def endpoint(self, osd):
        ready = self.ready(osd)
        return f"{ready['addr']}:{ready['port']}"

    def all_endpoints(self):
        osds = sorted(int(os.path.basename(f)[4:-4])
                      for f in glob.glob(os.path.join(self.dir, "osd.*.out")))
        return ",".join(self.endpoint(o) for o in osds)

    def ready(self, osd):
        with open(os.path.join(self.dir, f"osd.{osd}.out")) as f:
            for line in f:
                if '"event":"ready"' in line:
                    return json.loads(line)
        return None

    def snapshot(self, only_osd=None):
        """CPU (us), context switches and device bytes of the cluster's processes, and requests."""
        if only_osd is None:
            pids = self.osd_pids()
            etcd = self.pid("etcd")
            procs = pids + ([etcd] if etcd else [])
        else:
            pids = procs = [self.pid(f"osd.{only_osd}")]
        ticks = os.sysconf("SC_CLK_TCK")
        cpu = ctx = dev = dev_read = 0
        # Per thread name (ec-osd names its threads: msg-server, shard-worker, pg-worker, ...;
        # etcd's are "etcd"): context switches and CPU, summed over the processes.
        by_thread = {}
        etcd_pid = self.pid("etcd")
        for p in procs:
            try:
                stat = open(f"/proc/{p}/stat").read()
                fields = stat[stat.rindex(")") + 2:].split()
                cpu += (int(fields[11]) + int(fields[12])) * 1_000_000 // ticks
                for t in glob.glob(f"/proc/{p}/task/*"):
                    try:
                        name = "etcd" if p == etcd_pid else open(f"{t}/comm").read().strip()
                        tctx = 0
                        for line in open(f"{t}/status"):
                            if line.startswith(("voluntary_ctxt", "nonvoluntary_ctxt")):
                                tctx += int(line.split()[1])
                        tstat = open(f"{t}/stat").read()
                        tf = tstat[tstat.rindex(")") + 2:].split()
                        tcpu = (int(tf[11]) + int(tf[12])) * 1_000_000 // ticks
                    except (FileNotFoundError, ProcessLookupError):
                        continue  # a thread that ended meanwhile
                    ctx += tctx
                    c, u = by_thread.get(name, (0, 0))
                    by_thread[name] = (c + tctx, u + tcpu)
                if p in pids:
                    for line in open(f"/proc/{p}/io"):
                        if line.startswith("write_bytes:"):
                            dev += int(line.split()[1])
                        elif line.startswith("read_bytes:"):
                            dev_read += int(line.split()[1])
            except FileNotFoundError:
                pass
        requests = sub_writes = 0
        for text in self.metrics_texts(pids):
            # Direct reads (issue 28) and read-lease requests are messages too.
            for m in re.finditer(r'^ecstore_(osd_ops_total|pool_ops_total|osd_direct_reads_total|'
                                 r'osd_read_lease_requests_total)(\{[^}]*\})? (\d+)', text, re.M):
                requests += int(m.group(3))
            for m in re.finditer(r'^ecstore_osd_ops_total\{op="sub_write"\} (\d+)', text, re.M):
                sub_writes += int(m.group(1))
        return {"cpu": cpu, "ctx": ctx, "dev": dev, "dev_read": dev_read, "requests": requests,
                "sub_writes": sub_writes, "threads": by_thread}

    def metrics_texts(self, pids=None):
        """The /metrics page of every running OSD (of those among PIDS when given)."""
        texts = []
        for f in glob.glob(os.path.join(self.dir, "osd.*.out")):
            osd = int(os.path.basename(f)[4:-4])
            p = self.pid(f"osd.{osd}")
            if p is None or not os.path.exists(f"/proc/{p}") or (pids is not None and p not in pids):
                continue
            ready = self.ready(osd)
            if not ready:
                continue
            texts.append(urllib.request.urlopen(
                f"http://127.0.0.1:{ready['metrics_port']}/metrics", timeout=10).read().decode())
        return texts

    def kill_osd(self, osd):
        p = self.pid(f"osd.{osd}")
        if p:
            os.kill(p, 9)
        admin = os.path.join(self.bin, "ec-admin")
        for _ in range(300):
            dump = subprocess.run([admin, "osd", "dump", "--format", "json"], env=self.env,
                                  capture_output=True, text=True).stdout
            if re.search(r'"osd":%d,[^}]*"up":0' % osd, dump):
                return
            time.sleep(0.2)
        raise RuntimeError(f"{self.name}: osd.{osd} never marked down")


def measure(cluster, argv, parse, only_osd=None):
    before = cluster.snapshot(only_osd)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(argv, env=cluster.env, capture_output=True, text=True)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {out.returncode}: {out.stderr[-500:]}")
    after = cluster.snapshot(only_osd)
    ops, ops_per_sec, p50, p99 = parse(json.loads(out.stdout))
    ops = max(ops, 1)
    d = {k: after[k] - before[k] for k in before if k != "threads"}
    threads = {}
    for name, (c, u) in after["threads"].items():
        c0, u0 = before["threads"].get(name, (0, 0))
        if c - c0 > 0 or u - u0 > 0:
            threads[name] = {"context_switches": (c - c0) / ops, "cpu_us": (u - u0) / ops}
    client_cpu = ((ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)) * 1e6
    client_ctx = (ru1.ru_nvcsw - ru0.ru_nvcsw) + (ru1.ru_nivcsw - ru0.ru_nivcsw)
    return {"ops": ops, "ops_per_sec": ops_per_sec, "p50_us": p50, "p99_us": p99,
            "cluster_cpu_us": d["cpu"] / ops, "client_cpu_us": client_cpu / ops,
            "context_switches": d["ctx"] / ops, "client_switches": client_ctx / ops,
            "requests": d["requests"] / ops, "sub_writes": d["sub_writes"] / ops,
            "device_bytes": d["dev"] / ops, "device_read_bytes": d["dev_read"] / ops,
            "threads": threads}


def rados_parse(j):
    ops = j.get("total_writes_made") or j.get("total_reads_made") or 0
    return ops, j.get("average_iops"), j["latency_p50_s"] * 1e6, j["latency_p99_s"] * 1e6


def osd_bench_parse(j):
    w = j["shard_write"]
    return w["ops"], w["ops_per_sec"], w["latency_us"]["p50"], w["latency_us"]["p99"]


def osd_read_parse(j):
    w = j["shard_read"]
    return w["ops"], w["ops_per_sec"], w["latency_us"]["p50"], w["latency_us"]["p99"]


def run_workload(cluster, workload, rep, secs, ops):
    rados_bin = [os.path.join(cluster.bin, "ec-rados")]
    if not cluster.direct_reads:
        rados_bin += ["--direct-reads", "off"]
    rados = rados_bin + ["-p", "rs", "bench", str(secs)]
    pool = workload.split("_")[0] if workload.startswith(("clay_", "lrc_")) else "rs"
    if workload in ("small_read_t1", "clay_small_read_t1", "lrc_small_read_t1"):
        return measure(cluster, rados_bin + ["-p", pool, "bench", str(secs), "rand", "-t", "1",
                                             "--read-size", "4096", "--run-name", "objects64",
                                             "--format", "json"], rados_parse)
    if workload in ("clay_write_t1", "lrc_write_t1"):
        other = rados_bin + ["-p", pool, "bench", str(secs)]
        return measure(cluster, other + ["write", "-b", "4096", "-t", "1", "--no-cleanup",
                                        "--run-name", f"{workload}.{rep}", "--format", "json"],
                       rados_parse)
    if workload.startswith("write_t"):
        t = workload[len("write_t"):]
        return measure(cluster, rados + ["write", "-b", "4096", "-t", t, "--no-cleanup",
                                         "--run-name", f"{workload}.{rep}", "--format", "json"],
                       rados_parse)
    if workload in ("rewrite_t1", "clay_rewrite_t1", "lrc_rewrite_t1"):
        return measure(cluster, rados_bin + ["-p", pool, "bench", str(secs), "rewrite", "-b",
                                             "4096", "-t", "1", "--run-name", "objects64",
                                             "--format", "json"], rados_parse)
    if workload == "seq_read_t1":
        return measure(cluster, rados + ["seq", "-t", "1", "--run-name", "objects", "--format",
                                         "json"], rados_parse)
    if workload in ("rand_read_t16", "degraded_read_t1", "degraded_read_t16"):
        t = workload.rsplit("_t", 1)[1]
        return measure(cluster, rados + ["rand", "-t", t, "--run-name", "objects", "--format",
                                         "json"], rados_parse)
    if workload in ("shard_write_t1", "shard_read_t1", "shard_read_spread_t1"):
        # One OSD's own 4 KiB shard operation, its CPU osd.0's alone; or the reads round-robin
        # over every OSD, the whole cluster's CPU. The shards to read were written at start.
        write = workload == "shard_write_t1"
        spread = workload == "shard_read_spread_t1"
        argv = [os.path.join(cluster.bin, "ec-osd-bench"), "--endpoints",
                cluster.all_endpoints() if spread else cluster.endpoint(0),
                "--shard-write" if write else "--shard-read", "4k", "--inflight", "1",
                "--objects", "64", "--shard-ops", str(ops), "--json", *cluster.osd_bench_auth()]
        if not write:
            argv.append("--prepared")
        return measure(cluster, argv, osd_bench_parse if write else osd_read_parse,
                       only_osd=None if spread else 0)
    raise ValueError(workload)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:]))
    ap.add_argument("build", help="the build directory to measure (bin/, lib/)")
    ap.add_argument("--base", help="a second build to measure beside it (e.g. the commit before)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--secs", type=int, default=4, help="seconds per ec-rados run")
    ap.add_argument("--shard-ops", type=int, default=2000, help="ec-osd-bench operations per run")
    ap.add_argument("--out", default="bench/results/op_cost")
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--osd-opt", action="append", default=[], metavar="NAME=VALUE",
                    help="an ec-osd option for every cluster (repeatable)")
    ap.add_argument("--base-osd-opt", action="append", default=[], metavar="NAME=VALUE",
                    help="an ec-osd option for the base cluster only (repeatable)")
    ap.add_argument("--base-padded", action="store_true",
                    help="the base cluster's pools store shards padded to whole stripes (without "
                         "allow_ec_optimizations): with --base BUILD the same build, Fast EC's "
                         "effect alone")
    ap.add_argument("--base-direct-reads-off", action="store_true",
                    help="the base cluster's ec-rados runs with --direct-reads off: with --base "
                         "BUILD the same build, direct reads' effect alone")
    ap.add_argument("--auth", choices=("none", "cephx"), default="none",
                    help="every cluster's authentication (the launcher's --auth; default none)")
    ap.add_argument("--base-auth", choices=("none", "cephx"),
                    help="the base cluster's, overriding --auth: with --base BUILD the same build, "
                         "authentication's cost alone")
    ap.add_argument("--etcd-tls", choices=("on", "off"), default="off",
                    help="etcd over TLS in every cluster (the launcher's --etcd-tls; default off, "
                         "as the figures before issue 32 were taken)")
    ap.add_argument("--threads", action="store_true",
                    help="also print context switches and CPU per op by thread name")
    a = ap.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    workloads = [w for w in a.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            ap.error(f"unknown workload {w} (known: {', '.join(WORKLOADS)})")
    builds = {"new": os.path.abspath(a.build)}
    if a.base:
        builds = {"base": os.path.abspath(a.base), **builds}
    for name, b in builds.items():
        for p in ("ec-osd", "ec-rados", "ec-admin", "ec-osd-bench"):
            if not os.access(os.path.join(b, "bin", p), os.X_OK):
                sys.exit(f"missing {b}/bin/{p}: build it first")
    root = tempfile.mkdtemp(prefix="ec-op-cost.", dir=os.environ.get("TMPDIR", "/tmp"))
    clusters = [Cluster(n, b, root, repo, a.osd_opt + (a.base_osd_opt if n == "base" else []),
                        padded=a.base_padded and n == "base",
                        direct_reads=not (a.base_direct_reads_off and n == "base"),
                        lrc=any(w.startswith("lrc_") for w in workloads),
                        auth=(a.base_auth or a.auth) if n == "base" else a.auth,
                        etcd_tls=a.etcd_tls)
                for n, b in builds.items()]
    runs = []
    try:
        for c in clusters:
            print(f"== starting the {c.name} cluster ({c.bin})", flush=True)
            c.start()
            # The objects the read workloads read.
            subprocess.run([os.path.join(c.bin, "ec-rados"), "-p", "rs", "bench", str(a.secs),
                            "write", "-b", "4096", "-t", "16", "--no-cleanup", "--run-name",
                            "objects", "--format", "json"], env=c.env, check=True,
                           stdout=subprocess.DEVNULL)
            # The shards the shard_read workloads read, on every OSD (ec-osd-bench's own
            # collection, outside every pool).
            # (Each OSD all 64: a round-robin run reads object i from OSD i mod N.)
            for endpoint in c.all_endpoints().split(","):
                subprocess.run([os.path.join(c.bin, "ec-osd-bench"), "--endpoints", endpoint,
                                "--shard-write", "4k", "--inflight", "4", "--objects", "64",
                                "--shard-ops", "64", "--json", *c.osd_bench_auth()],
                               env=c.env, check=True, stdout=subprocess.DEVNULL)
            # The 64 KiB objects the rewrite workloads overwrite, in both pools.
            for pool in ("rs", "clay") + (("lrc",) if c.lrc else ()):
                subprocess.run([os.path.join(c.bin, "ec-rados"), "-p", pool, "bench", "60",
                                "write", "-b", "65536", "-t", "16", "--max-objects", "256",
                                "--no-cleanup", "--run-name", "objects64", "--format", "json"],
                               env=c.env, check=True, stdout=subprocess.DEVNULL)
        killed = False
        for w in workloads:
            if w.startswith("degraded") and not killed:
                for c in clusters:
                    c.kill_osd(1)
                killed = True
            for rep in range(1, a.reps + 1):
                for c in clusters:
                    r = run_workload(c, w, rep, a.secs, a.shard_ops)
                    r.update(workload=w, build=c.name, rep=rep)
                    runs.append(r)
                    print(f"{w} rep {rep} {c.name}: " +
                          ", ".join(f"{k} {r[k]:.1f}" for k in KEYS if r[k] is not None),
                          flush=True)
    finally:
        for c in clusters:
            c.stop()
        shutil.rmtree(root, ignore_errors=True)
    medians = {}
    for w in workloads:
        for c in clusters:
            rs = [r for r in runs if r["workload"] == w and r["build"] == c.name]
            medians.setdefault(w, {})[c.name] = {
                k: statistics.median(r[k] for r in rs) for k in KEYS
                if all(r[k] is not None for r in rs)}
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "op_cost.json")
    with open(path, "w") as f:
        json.dump({"builds": builds, "osd_opts": {c.name: c.osd_opts for c in clusters},
                   "padded": {c.name: c.padded for c in clusters},
                   "reps": a.reps, "secs": a.secs, "medians": medians,
                   "runs": runs}, f, indent=2)
    names = [c.name for c in clusters]
    head = "| workload | build | " + " | ".join(KEYS) + " |"
    print("\n" + head + "\n|" + "---|" * (len(KEYS) + 2))
    for w in workloads:
        for n in names:
            m = medians[w][n]
            print(f"| {w} | {n} | " + " | ".join(f"{m[k]:.1f}" if k in m else "-" for k in KEYS)
                  + " |")
        if len(names) == 2:
            b, n = medians[w]["base"], medians[w]["new"]
            print(f"| {w} | new/base | " + " | ".join(
                f"{n[k] / b[k]:.2f}" if k in n and k in b and b[k] else "-" for k in KEYS) + " |")
    print(f"\n(medians of {a.reps}; every run in {path})")
    if a.threads:
        # Where the context switches and the CPU go, by thread name (the last rep of each).
        print("\n| workload | build | thread | context switches/op | CPU us/op |\n|---|---|---|---|---|")
        for w in workloads:
            for n in names:
                last = [r for r in runs if r["workload"] == w and r["build"] == n][-1]
                top = sorted(last["threads"].items(), key=lambda kv: -kv[1]["context_switches"])
                for name, t in top:
                    if t["context_switches"] >= 0.1 or t["cpu_us"] >= 5:
                        print(f"| {w} | {n} | {name} | {t['context_switches']:.1f} | "
                              f"{t['cpu_us']:.0f} |")


if __name__ == "__main__":
    main()
