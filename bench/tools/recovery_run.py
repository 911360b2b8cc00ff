#!/usr/bin/env python3
"""One recovery measurement of bench/recovery_netns.sh, on a running netns cluster.

Timeline (all times are Unix seconds, the clock of the client's --latency-log):
  baseline  the client read load (already started by the caller, pid --client-pid) runs alone for
            --baseline seconds while the links are sampled;
  kill      SIGKILL to the victim OSD (--victim-pid), then wait until the map shows it down;
  degraded  --degraded seconds with the OSD down but not out: the PGs are degraded and nothing
            recovers (no OSD to rebuild on), the client's baseline without recovery at the same
            state of the data;
  out       `ec-admin osd out ID`: placement moves the victim's shards; recovery starts;
  clean     the first `ec-admin -s` poll where every PG is active+clean again, after the run was
            seen unclean (or the recovery totals grew), i.e. the PGs' primaries reported at the new
            map's epoch that nothing is missing;
then SIGTERM to the client load (it ends with its summary; with --client-stop out, at the out
instead, so that the recovery runs alone: a load of whole-chunk reads would share its links). Link byte counters (the bridge side of
every veth, /sys/class/net/LINK/statistics) are sampled every --sample seconds throughout, the
status every --poll seconds. Writes everything to --out as JSON; the figures are computed by
recovery_summary.py. Exit 1 when a step fails or --timeout passes (the caller tears down).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time


def read_links(links):
    out = {}
    for name in links:
        base = f"/sys/class/net/{name}/statistics"
        try:
            with open(f"{base}/tx_bytes") as f:
                tx = int(f.read())
            with open(f"{base}/rx_bytes") as f:
                rx = int(f.read())
        except OSError:
            tx = rx = None
        out[name] = [tx, rx]
    return out


def read_cpu():
    """/proc/stat's first line: [busy, idle+iowait, steal] in clock ticks, all CPUs."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    steal = v[7] if len(v) > 7 else 0
    return [sum(v[:8]) - idle - steal, idle, steal]


def read_proc_cpu(pids):
    """CPU seconds (user + system) used so far by each of `pids` (None when gone)."""
    hz = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[str(pid)] = (int(fields[11]) + int(fields[12])) / hz
        except (OSError, IndexError, ValueError):
            out[str(pid)] = None
    return out


def admin_json(admin, conf, *args):
    cmd = [admin, "-c", conf, *args, "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def pg_summary(status):
    pgmap = status.get("pgmap", {})
    states = {s["state_name"]: s["count"] for s in pgmap.get("pgs_by_state", [])}
    rec = pgmap.get("recovery", {}) or {}
    return {
        "states": states,
        "num_pgs": pgmap.get("num_pgs", 0),
        "degraded_objects": pgmap.get("degraded_objects", 0),
        "misplaced_objects": pgmap.get("misplaced_objects", 0),
        "recovering_bytes_per_sec": pgmap.get("recovering_bytes_per_sec", 0),
        "missing_bytes": rec.get("missing_bytes", 0),
        "rebuilt_bytes": rec.get("rebuilt_bytes", 0),
        "network_bytes": rec.get("network_bytes", 0),
    }


def all_clean(s):
    return s["num_pgs"] > 0 and s["states"] == {"active+clean": s["num_pgs"]} and \
        not s["missing_bytes"]


def sample(links):
    """[time, links, cpu]; the time is the middle of the reads, which on a busy machine can be
    descheduled for tens of ms (a timestamp taken before them skewed 0.1 s rates by 20%)."""
    t0 = time.time()
    lk, cpu = read_links(links), read_cpu()
    return [(t0 + time.time()) / 2, lk, cpu]


class Sampler(threading.Thread):
    """Samples the link counters every `period` seconds until stopped."""

    def __init__(self, links, period):
        super().__init__(daemon=True)
        self.links, self.period = links, period
        self.samples = []
        self.stopped = threading.Event()

    def run(self):
        nxt = time.time()
        while not self.stopped.is_set():
            self.samples.append(sample(self.links))
            nxt += self.period
            self.stopped.wait(max(0.0, nxt - time.time()))

    def stop(self):
        self.stopped.set()
        self.join()
        self.samples.append(sample(self.links))


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n:.0f} B"
        n /= 1024.0
    return str(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--admin", required=True)
    ap.add_argument("--conf", required=True)
    ap.add_argument("--victim", type=int, required=True, help="OSD id to kill")
    ap.add_argument("--victim-pid", type=int, required=True)
    ap.add_argument("--client-pid", type=int, default=0, help="client load to SIGTERM at clean")
    ap.add_argument("--client-stop", choices=("out", "clean"), default="clean",
                    help="when the client load is stopped (default clean)")
    ap.add_argument("--links", required=True, help="comma-separated root-side link names")
    ap.add_argument("--osd-pids", default="",
                    help="comma-separated ID:PID of the other OSDs (one that dies fails the run)")
    ap.add_argument("--baseline", type=float, default=10.0)
    ap.add_argument("--degraded", type=float, default=0.0,
                    help="seconds between down and out (the degraded baseline)")
    ap.add_argument("--sample", type=float, default=0.1)
    ap.add_argument("--poll", type=float, default=0.5)
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds from out to clean")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    links = a.links.split(",")
    osd_ids = {}
    for item in filter(None, a.osd_pids.split(",")):
        osd_id, _, pid = item.partition(":")
        osd_ids[int(pid)] = int(osd_id)
    osd_pids = list(osd_ids)

    rec = {"victim": a.victim, "links": links}
    status0 = pg_summary(admin_json(a.admin, a.conf, "-s"))
    if not all_clean(status0):
        sys.exit(f"recovery_run: the cluster is not active+clean before the kill: {status0['states']}")
    rec["status_before"] = status0
    sampler = Sampler(links, a.sample)
    rec["t_baseline_start"] = time.time()
    sampler.start()
    polls = []
    try:
        time.sleep(a.baseline)
        rec["t_kill"] = time.time()
        os.kill(a.victim_pid, signal.SIGKILL)
        deadline = time.time() + 120
        while True:
            dump = admin_json(a.admin, a.conf, "osd", "dump")
            osd = [o for o in dump.get("osds", []) if o.get("osd") == a.victim]
            if osd and not osd[0].get("up", 1):
                break
            if time.time() > deadline:
                raise RuntimeError(f"osd.{a.victim} not down in the map 120 s after the kill")
            time.sleep(0.2)
        rec["t_down"] = time.time()
        time.sleep(a.degraded)
        # The out starts when the command is issued: the map changes while it runs, and the
        # primaries start recovering at once, before a slow ec-admin (an ASan build's exit, say)
        # has returned; a window opened after it would miss the first bytes on the wire.
        if a.client_pid and a.client_stop == "out":
            try:
                os.kill(a.client_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            # Its last read ends before the out (a read in flight would share the links).
            for _ in range(600):
                try:
                    os.kill(a.client_pid, 0)
                except ProcessLookupError:
                    break
                # The caller's shell waits for it; a zombie still answers kill(pid, 0).
                try:
                    with open(f"/proc/{a.client_pid}/stat") as f:
                        if f.read().split(") ")[-1].startswith("Z"):
                            break
                except OSError:
                    break
                time.sleep(0.05)
            a.client_pid = 0
        rec["t_out"] = time.time()
        rec["osd_cpu_at_out"] = read_proc_cpu(osd_pids)
        p = subprocess.run([a.admin, "-c", a.conf, "osd", "out", str(a.victim)],
                           capture_output=True, text=True, timeout=30)
        if p.returncode != 0:
            raise RuntimeError(f"osd out {a.victim}: {p.stderr.strip()}")
        print(f"  osd.{a.victim} killed, down after {rec['t_down'] - rec['t_kill']:.1f} s, "
              f"marked out; recovering", flush=True)
        seen_unclean = False
        last_print = 0.0
        failures = 0
        while True:
            t = time.time()
            try:
                s = pg_summary(admin_json(a.admin, a.conf, "-s"))
                failures = 0
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
                # A busy etcd or machine: try again, but not forever.
                failures += 1
                if failures >= 20:
                    raise RuntimeError(f"ec-admin -s failed 20 times in a row: {e}")
                time.sleep(a.poll)
                continue
            polls.append([t, s])
            # Another OSD dying would leave PGs undersized for good: say so instead of waiting
            # out the timeout (a crash of osd.14 with std::bad_alloc did that once).
            for pid, osd_id in osd_ids.items():
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    raise RuntimeError(f"osd.{osd_id} (pid {pid}) died during recovery; "
                                       f"see its .out and .log in the cluster directory")
            clean = all_clean(s)
            if not clean:
                seen_unclean = True
            grown = s["rebuilt_bytes"] > status0["rebuilt_bytes"]
            if clean and (seen_unclean or grown):
                rec["t_clean"] = t
                rec["osd_cpu_at_clean"] = read_proc_cpu(osd_pids)
                break
            if t - last_print >= 2.0:
                last_print = t
                states = ", ".join(f"{n} {st}" for st, n in sorted(s["states"].items()))
                print(f"  {t - rec['t_out']:6.1f} s: {states}; degraded {s['degraded_objects']}, "
                      f"misplaced {s['misplaced_objects']}, "
                      f"{human(s['recovering_bytes_per_sec'])}/s", flush=True)
            if t - rec["t_out"] > a.timeout:
                raise RuntimeError(f"not active+clean {a.timeout:.0f} s after the out: {s['states']}")
            time.sleep(max(0.0, a.poll - (time.time() - t)))
        rec["seen_unclean"] = seen_unclean
        print(f"  every PG active+clean {rec['t_clean'] - rec['t_out']:.1f} s after the out",
              flush=True)
    finally:
        if a.client_pid:
            try:
                os.kill(a.client_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        rec["t_client_stop"] = time.time()
        sampler.stop()
        rec["samples"] = sampler.samples
        rec["polls"] = polls
        with open(a.out, "w") as f:
            json.dump(rec, f)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        sys.exit(f"recovery_run: {e}")
