#!/usr/bin/env python3
"""How peering, recovery, listing and the OSD's memory grow with the objects an OSD holds (issue 31).

One local cluster (etcd and 4 ec-osd on 4 simulated hosts, bench/op_cost.py's cluster) and an
RS(2,1) isa pool of --pgs PGs: each object puts one shard on 3 of the 4 OSDs, so an OSD holds
3/4 of the pool's objects. The pool is filled with 4 KiB objects (ec-rados bench write, 16 in
flight) level by level, to each --levels count of objects per OSD (default 1000, 10000, 100000),
and at each level:
  list_s          `ec-rados ls` of the whole pool (seconds; the count is checked)
  rss_mib         the ec-osds' mean resident memory (VmRSS) after the fill; its growth between
                  levels over the objects added is `rss_bytes_per_object`
  restart_s       osd.3 killed (kill -9, marked down) and started again with no write missed:
                  seconds from its start (the process's, before its store opens) to every PG
                  active+clean (peering every PG it is in)
  restart_w_s     the same with --missed writes (new 4 KiB objects) made while it was down: its
                  catch-up (peering, then the pulls of what it missed)
  scanned_entries shard entries the primaries' peering scanned after that restart (the "peered
                  at epoch E: N objects from M shard entries" lines of the OSDs' logs), with the
                  PGs peered in full and caught up (full_peerings, catch_ups: "caught up at
                  epoch E: N objects to ask their shards again", N summed in catch_up_marked)
  recovery_obj_s  osd.3 marked out: objects rebuilt per second until every PG is active+clean
                  (ecstore_recovery_objects_total over the time), then marked in again and the
                  backfill back waited for (backfill_s)
Writes OUT/scale.json, and with gnuplot (bench/setup.sh installs it) OUT/scale.png.

Usage: bench/scale.sh [--levels 1000,10000,100000] [--pgs N] [--missed W] [--out DIR] BUILD
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import op_cost  # noqa: E402  (bench/tools/op_cost.py: the cluster)

OSDS = 4
VICTIM = 3


class ScaleCluster(op_cost.Cluster):
    def __init__(self, *args, pgs=16, **kw):
        super().__init__(*args, **kw)
        self.pgs = pgs
        self.admin = os.path.join(self.bin, "ec-admin")

    def create_pools(self):
        self.run(self.admin, "osd", "erasure-code-profile", "set", "rs21", "plugin=isa", "k=2",
                 "m=1", "crush-failure-domain=host", stdout=subprocess.DEVNULL)
        self.run(self.admin, "osd", "pool", "create", "scale", str(self.pgs), str(self.pgs),
                 "erasure", "rs21", stdout=subprocess.DEVNULL)

    def rados(self, *args, **kw):
        return subprocess.run([os.path.join(self.bin, "ec-rados"), "-p", "scale", *args],
                              env=self.env, check=True, **kw)

    def pg_states(self):
        out = subprocess.run([self.admin, "-s", "--format", "json"], env=self.env, check=True,
                             capture_output=True, text=True).stdout
        pgmap = json.loads(out).get("pgmap", {})
        return pgmap.get("num_pgs", 0), {s["state_name"]: s["count"]
                                         for s in pgmap.get("pgs_by_state", [])}

    def wait_clean(self, timeout, started=None):
        """Seconds until every PG is active+clean. With `started` (a callable), only once it
        says the event that made them unclean was seen (a status from before it reads clean)."""
        t0 = time.time()
        seen = started is None
        states = {}
        while time.time() - t0 < timeout:
            n, states = self.pg_states()
            if n > 0 and states == {"active+clean": n}:
                if seen or started():
                    return time.time() - t0
            else:
                seen = True
            time.sleep(0.2)
        raise RuntimeError(f"not active+clean after {timeout:.0f} s: {states}")

    def wait_unclean(self, timeout):
        t0 = time.time()
        while time.time() - t0 < timeout:
            n, states = self.pg_states()
            if n > 0 and states != {"active+clean": n}:
                return
            time.sleep(0.2)
        raise RuntimeError(f"still active+clean {timeout:.0f} s after osd.{VICTIM} was killed")

    def osd_up(self, osd):
        dump = subprocess.run([self.admin, "osd", "dump", "--format", "json"], env=self.env,
                              capture_output=True, text=True).stdout
        return re.search(r'"osd":%d,[^}]*"up":1' % osd, dump) is not None

    def restart(self, osd):
        """Starts the OSDs not running (osd) again; returns the time it was started."""
        t = time.time()
        subprocess.run([os.path.join(self.repo, "scripts/cluster.sh"), "start", "--dir",
                        self.dir, "--bin", self.bin], env=self.env, check=True,
                       stdout=subprocess.DEVNULL)
        return t

    def rss(self):
        vals = []
        for p in self.osd_pids():
            for line in open(f"/proc/{p}/status"):
                if line.startswith("VmRSS:"):
                    vals.append(int(line.split()[1]) * 1024)
        return sum(vals) / max(len(vals), 1)

    def log_sizes(self):
        return {f: os.path.getsize(f) for f in glob.glob(os.path.join(self.dir, "osd.*.log"))}

    def scanned_since(self, sizes):
        """From the OSDs' log lines written after `sizes`: the shard entries full peerings
        scanned, how many PGs peered in full and caught up, and the objects catch-ups marked to
        ask again (osd/pg/README.md, item 7)."""
        out = {"entries": 0, "full": 0, "catch_ups": 0, "marked": 0}
        for f in glob.glob(os.path.join(self.dir, "osd.*.log")):
            with open(f, "rb") as fh:
                fh.seek(sizes.get(f, 0))
                text = fh.read()
            for m in re.finditer(rb"peered at epoch \d+: \d+ objects from (\d+) shard entries",
                                 text):
                out["entries"] += int(m.group(1))
                out["full"] += 1
            for m in re.finditer(rb"caught up at epoch \d+: (\d+) objects", text):
                out["marked"] += int(m.group(1))
                out["catch_ups"] += 1
        return out

    def recovered_objects(self):
        total = 0
        for text in self.metrics_texts():
            for m in re.finditer(r'^ecstore_recovery_objects_total\{[^}]*result="ok"[^}]*\} (\d+)',
                                 text, re.M):
                total += int(m.group(1))
        return total


def fill(c, name, count):
    if count <= 0:
        return
    c.rados("bench", "86400", "write", "-b", "4096", "-t", "16", "--no-cleanup",
            "--max-objects", str(count), "--run-name", name, "--format", "json",
            stdout=subprocess.DEVNULL)


def restart_after_kill(c, missed, tag, timeout):
    c.kill_osd(VICTIM)
    if missed:
        fill(c, tag, missed)
    # The status shows the kill before the restart, so a clean one after it is the restart's.
    c.wait_unclean(timeout)
    sizes = c.log_sizes()
    started = c.restart(VICTIM)  # returns once the OSD is ready
    c.wait_clean(timeout)
    secs = time.time() - started
    # The peering lines may follow the status by a report interval: read them after.
    return secs, c.scanned_since(sizes)


def plot(out_dir, rows):
    if shutil.which("gnuplot") is None:
        print("(no gnuplot: no plot; bench/setup.sh installs it)")
        return
    data = os.path.join(out_dir, "scale.dat")
    with open(data, "w") as f:
        f.write("# objects_per_osd list_s restart_s restart_w_s recovery_obj_s rss_mib\n")
        for r in rows:
            f.write(f"{r['objects_per_osd']} {r['list_s']:.3f} {r['restart_s']:.3f} "
                    f"{r['restart_w_s']:.3f} {r['recovery_obj_s']:.1f} {r['rss_mib']:.1f}\n")
    gp = os.path.join(out_dir, "scale.gp")
    with open(gp, "w") as f:
        f.write(f"""set terminal pngcairo size 1200,420 noenhanced
set output '{os.path.join(out_dir, "scale.png")}'
set multiplot layout 1,3
set logscale x
set xrange [{rows[0]['objects_per_osd'] / 2}:{rows[-1]['objects_per_osd'] * 2}]
set xlabel 'objects per OSD'
set key top left
set grid
set title 'seconds'
plot '{data}' using 1:2 with linespoints title 'ec-rados ls', \\
     '' using 1:3 with linespoints title 'restart, 0 missed', \\
     '' using 1:4 with linespoints title 'restart, writes missed'
set title 'recovery after an out (objects/s)'
plot '{data}' using 1:5 with linespoints title 'objects/s'
set title 'ec-osd resident memory (MiB, mean)'
plot '{data}' using 1:6 with linespoints title 'VmRSS'
unset multiplot
""")
    subprocess.run(["gnuplot", gp], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:]))
    ap.add_argument("build", help="the build directory to measure (bin/, lib/)")
    ap.add_argument("--levels", default="1000,10000,100000",
                    help="objects per OSD at each measurement, ascending")
    ap.add_argument("--pgs", type=int, default=16)
    ap.add_argument("--missed", type=int, default=200,
                    help="writes made while the restarted OSD is down")
    ap.add_argument("--out", default="bench/results/scale")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per wait")
    a = ap.parse_args()
    try:
        levels = [int(x) for x in a.levels.split(",") if x]
    except ValueError:
        ap.error("--levels takes whole numbers, e.g. 1000,10000")
    if not levels or levels != sorted(levels) or levels[0] < 1:
        ap.error("--levels must be ascending counts >= 1")
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build = os.path.abspath(a.build)
    for p in ("ec-osd", "ec-rados", "ec-admin"):
        if not os.access(os.path.join(build, "bin", p), os.X_OK):
            sys.exit(f"missing {build}/bin/{p}: build it first")
    root = tempfile.mkdtemp(prefix="ec-scale.", dir=os.environ.get("TMPDIR", "/tmp"))
    c = ScaleCluster("cluster", build, root, repo, [], device_size="3G", osds=OSDS, pgs=a.pgs)
    rows = []
    objects = 0  # in the pool
    try:
        print(f"== starting the cluster ({c.bin}): {OSDS} OSDs, RS(2,1), {a.pgs} PGs", flush=True)
        c.start()
        rss0 = c.rss()
        for i, level in enumerate(levels):
            target = level * OSDS // 3  # objects in the pool for `level` per OSD
            t0 = time.time()
            fill(c, f"fill{i}", target - objects)
            objects = max(objects, target)
            fill_s = time.time() - t0
            rss = c.rss()
            t0 = time.time()
            listed = c.rados("ls", capture_output=True, text=True).stdout.count("\n")
            list_s = time.time() - t0
            restart_s, scanned0 = restart_after_kill(c, 0, None, a.timeout)
            restart_w_s, scanned = restart_after_kill(c, a.missed, f"missed{i}", a.timeout)
            objects += a.missed
            rec0 = c.recovered_objects()
            subprocess.run([c.admin, "osd", "out", str(VICTIM)], env=c.env, check=True,
                           stdout=subprocess.DEVNULL)
            rec_s = c.wait_clean(a.timeout, lambda: c.recovered_objects() > rec0)
            recovered = c.recovered_objects() - rec0
            rec1 = rec0 + recovered
            subprocess.run([c.admin, "osd", "in", str(VICTIM)], env=c.env, check=True,
                           stdout=subprocess.DEVNULL)
            backfill_s = c.wait_clean(a.timeout, lambda: c.recovered_objects() > rec1)
            row = {"objects_per_osd": level, "pool_objects": objects, "listed": listed,
                   "fill_s": fill_s, "list_s": list_s, "rss_mib": rss / 2**20,
                   "rss_bytes_per_object": (rss - rss0) / level,
                   "restart_s": restart_s, "restart_scanned_entries": scanned0["entries"],
                   "restart_full_peerings": scanned0["full"],
                   "restart_catch_ups": scanned0["catch_ups"],
                   "restart_w_s": restart_w_s, "scanned_entries": scanned["entries"],
                   "full_peerings": scanned["full"], "catch_ups": scanned["catch_ups"],
                   "catch_up_marked": scanned["marked"],
                   "recovered_objects": recovered, "recovery_s": rec_s,
                   "recovery_obj_s": recovered / rec_s if rec_s else 0.0,
                   "backfill_s": backfill_s}
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        c.stop()
        shutil.rmtree(root, ignore_errors=True)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "scale.json"), "w") as f:
        json.dump({"build": build, "pgs": a.pgs, "missed": a.missed, "rows": rows}, f, indent=2)
    print("\n| objects/OSD | ls (s) | restart, 0 missed (s) | entries scanned | restart, "
          f"{a.missed} missed (s) | entries scanned | recovery (objects/s) | backfill back (s) | "
          "RSS (MiB) | RSS bytes/object |\n|" + "---|" * 10)
    for r in rows:
        print(f"| {r['objects_per_osd']} | {r['list_s']:.2f} | {r['restart_s']:.2f} | "
              f"{r['restart_scanned_entries']} | {r['restart_w_s']:.2f} | {r['scanned_entries']} | "
              f"{r['recovery_obj_s']:.0f} | {r['backfill_s']:.1f} | {r['rss_mib']:.0f} | "
              f"{r['rss_bytes_per_object']:.0f} |")
    plot(a.out, rows)


if __name__ == "__main__":
    main()
