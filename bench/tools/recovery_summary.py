#!/usr/bin/env python3
"""The figures of bench/recovery_netns.sh from its work directory: per run (code, stripe unit)
the times, bytes, link utilisation and client latency; CLAY/RS ratios against the targets; a
results JSON, a markdown table and gnuplot PNGs.

usage: recovery_summary.py WORK_DIR OUT_DIR [--label TEXT] [--plots]
       recovery_summary.py --replot - OUT_DIR      (the plots again from OUT_DIR/recovery.json)

WORK_DIR holds, per run TAG (CODE_SU): meta_TAG.json (written by the shell script last, so a run
that has one is complete), run_TAG.json (recovery_run.py), lat_TAG.log (ec-rados --latency-log),
metrics_TAG.before/after (the OSDs' /metrics concatenated). OUT_DIR gets recovery.json, recovery.md and, with --plots,
recovery_time.png and recovery_bytes.png (gnuplot).
"""
import argparse
import bisect
import glob
import json
import os
import re
import subprocess
import sys

METRIC = re.compile(r'^(ecstore_recovery_[a-z_]+)\{([^}]*)\}\s+([0-9.eE+]+)\s*$')


def metrics_sum(path):
    """Sums ecstore_recovery_* counters over all OSDs and pools; objects by result."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        m = METRIC.match(line.strip())
        if not m:
            continue
        name, labels, value = m.group(1), m.group(2), float(m.group(3))
        if name.endswith("_bucket"):
            continue
        if name in ("ecstore_recovery_objects_total", "ecstore_recovery_pull_seconds_sum",
                    "ecstore_recovery_pull_seconds_count"):
            r = re.search(r'result="([^"]*)"', labels)
            name += "_" + (r.group(1) if r else "all")
        out[name] = out.get(name, 0) + value
    return out


def percentile(values, q):
    if not values:
        return None
    v = sorted(values)
    rank = max(1, -(-int(q * 1000) * len(v) // 1000))  # nearest rank, ceil(q*n)
    return v[min(rank, len(v)) - 1]


class Counters:
    """Link byte counters sampled over time; value at t by linear interpolation."""

    def __init__(self, samples, link, idx):
        self.t, self.v = [], []
        for t, links, *_ in samples:
            val = links.get(link, [None, None])[idx]
            if val is not None:
                self.t.append(t)
                self.v.append(val)

    def at(self, t):
        if not self.t:
            return 0
        i = bisect.bisect_left(self.t, t)
        if i <= 0:
            return self.v[0]
        if i >= len(self.t):
            return self.v[-1]
        t0, t1, v0, v1 = self.t[i - 1], self.t[i], self.v[i - 1], self.v[i]
        return v0 + (v1 - v0) * (t - t0) / (t1 - t0) if t1 > t0 else v1


def analyse(work, tag):
    meta = json.load(open(f"{work}/meta_{tag}.json"))
    run = json.load(open(f"{work}/run_{tag}.json"))
    k, m, d = meta["k"], meta["m"], meta.get("d")
    clay = meta["plugin"] == "clay"
    # Chunks read per chunk rebuilt: CLAY d/q, LRC its local group (l), RS and the rest k.
    minimum = d / (d - k + 1) if clay else float(meta.get("l") or k)
    rate = meta["rate_bytes_per_sec"]
    samples = run["samples"]
    t_b0, t_kill, t_out, t_clean = run["t_baseline_start"], run["t_kill"], run["t_out"], \
        run["t_clean"]
    host_links, all_links = meta["host_links"], meta["host_links"] + [meta["client_link"]]
    # tx of the bridge side = bytes to the host, rx = bytes from the host.
    c = {(l, d_): Counters(samples, l, i) for l in all_links for i, d_ in ((0, "in"), (1, "out"))}

    def into_hosts(t):
        return sum(c[(l, "in")].at(t) for l in host_links)

    base = max(t_kill - t_b0, 1e-9)
    base_rate_in = (into_hosts(t_kill) - into_hosts(t_b0)) / base
    total_in = into_hosts(t_clean) - into_hosts(t_out)
    excess = total_in - base_rate_in * (t_clean - t_out)
    # The recovery transfer ends when 99% of the bytes above the baseline rate have crossed.
    t_end = t_clean
    for t, *_ in (samples if excess > 0 else []):
        if t_out < t <= t_clean and \
                into_hosts(t) - into_hosts(t_out) - base_rate_in * (t - t_out) >= 0.99 * excess:
            t_end = t
            break
    transfer = max(t_end - t_out, 1e-3)
    busiest, busiest_link = 0.0, ""
    for (l, dirn), cnt in c.items():
        u = (cnt.at(t_end) - cnt.at(t_out)) / (transfer * rate)
        if u > busiest:
            busiest, busiest_link = u, f"{l} {'to' if dirn == 'in' else 'from'} host"
    # The busiest 0.5 s of any link during the transfer (bursts a client op may queue behind);
    # shorter windows are at the mercy of the sampler's scheduling on a busy machine.
    peak = 0.0
    win = [x[0] for x in samples if t_out <= x[0] <= t_end][::5]
    for (l, dirn), cnt in c.items():
        for t0_, t1_ in zip(win, win[1:]):
            if t1_ > t0_:
                peak = max(peak, (cnt.at(t1_) - cnt.at(t0_)) / ((t1_ - t0_) * rate))
    wire_all = sum(c[(l, "out")].at(t_clean) - c[(l, "out")].at(t_out) for l in all_links)
    # Issue 33's per-link figure: the most bytes any one link carried one way during the
    # transfer (the client load, when it ran on, included).
    busiest_bytes, busiest_bytes_link = 0.0, ""
    for (l, dirn), cnt in c.items():
        b = cnt.at(t_end) - cnt.at(t_out)
        if b > busiest_bytes:
            busiest_bytes, busiest_bytes_link = b, f"{l} {'to' if dirn == 'in' else 'from'} host"

    # The machine's CPU over [t0, t1] from /proc/stat samples: busy and steal fractions of all CPUs.
    def cpu(t0, t1):
        pts = [(s_[0], s_[2]) for s_ in samples if len(s_) > 2]
        a_ = [v for t, v in pts if t >= t0]
        b_ = [v for t, v in pts if t <= t1]
        if not a_ or not b_:
            return None, None
        d_ = [b_[-1][i] - a_[0][i] for i in range(3)]
        tot = sum(d_)
        return (d_[0] / tot, d_[2] / tot) if tot > 0 else (None, None)

    busy_base, steal_base = cpu(t_b0, t_kill)
    busy_rec, steal_rec = cpu(t_out, t_end)
    osd_cpu = None
    c0, c1 = run.get("osd_cpu_at_out") or {}, run.get("osd_cpu_at_clean") or {}
    if c0 and c1:
        osd_cpu = sum(c1[p] - c0[p] for p in c0 if c0[p] is not None and c1.get(p) is not None)

    before, after = metrics_sum(f"{work}/metrics_{tag}.before"), \
        metrics_sum(f"{work}/metrics_{tag}.after")

    def delta(name):
        return after.get(name, 0) - before.get(name, 0)

    net, dev, rebuilt = delta("ecstore_recovery_network_bytes_total"), \
        delta("ecstore_recovery_helper_device_bytes_total"), \
        delta("ecstore_recovery_rebuilt_bytes_total")
    ok_objs, failed_objs = delta("ecstore_recovery_objects_total_ok"), \
        delta("ecstore_recovery_objects_total_failed")
    pulls, pull_s = delta("ecstore_recovery_pull_seconds_count_ok"), \
        delta("ecstore_recovery_pull_seconds_sum_ok")

    lat = {"baseline": [], "degraded": [], "recovery": [], "recovery_direct": [],
           "degraded_reads": [], "degraded_direct": []}
    t_down = run["t_down"]
    degraded_during = 0
    logf = f"{work}/lat_{tag}.log"
    if os.path.exists(logf):
        for line in open(logf):
            parts = line.split()
            if len(parts) != 3:
                continue
            t, l, dg = float(parts[0]), float(parts[1]), parts[2] == "1"
            if t_b0 + 1.0 <= t < t_kill:
                lat["baseline"].append(l)
            elif t_down + 1.0 <= t < t_out:
                lat["degraded"].append(l)
                lat["degraded_reads" if dg else "degraded_direct"].append(l)
            elif t_out <= t <= t_clean:
                lat["recovery"].append(l)
                degraded_during += dg
                if not dg:
                    lat["recovery_direct"].append(l)
    p99b, p99r = percentile(lat["baseline"], 0.99), percentile(lat["recovery"], 0.99)
    p99d = percentile(lat["degraded"], 0.99)
    r = {
        "tag": tag, "code": meta["code"], "label": meta["label"], "plugin": meta["plugin"],
        "k": k, "m": m, "d": d, "stripe_unit": meta["stripe_unit"],
        "stripe_unit_asked": meta["stripe_unit_asked"], "data_bytes": meta["data_bytes"],
        "objects": meta["objects"], "object_size": meta["object_size"], "pgs": meta["pgs"],
        "hosts": meta["hosts"], "rate_bytes_per_sec": rate, "victim": run["victim"],
        "pipeline": meta.get("pipeline", "default"), "read_size": meta.get("read_size", 0),
        "pull_seconds_per_object": pull_s / pulls if pulls else None,
        "busiest_link_bytes": busiest_bytes, "busiest_link_bytes_link": busiest_bytes_link,
        "busiest_link_per_rebuilt": busiest_bytes / rebuilt if rebuilt else None,
        "fill_mb_sec": meta.get("fill_mb_sec"),
        "down_detect_s": run["t_down"] - t_kill,
        "time_to_clean_s": t_clean - t_out,
        "transfer_time_s": transfer,
        "seen_unclean": run.get("seen_unclean"),
        "network_bytes": net, "helper_device_bytes": dev, "rebuilt_bytes": rebuilt,
        "objects_recovered": ok_objs, "objects_failed": failed_objs,
        "network_per_rebuilt": net / rebuilt if rebuilt else None,
        "device_per_rebuilt": dev / rebuilt if rebuilt else None,
        "minimum_per_rebuilt": minimum,
        "wire_into_hosts_bytes": total_in,
        "wire_into_hosts_above_baseline_bytes": excess,
        "wire_per_rebuilt": excess / rebuilt if rebuilt else None,
        "wire_all_links_bytes": wire_all,
        "busiest_link_utilisation": busiest, "busiest_link": busiest_link,
        "peak_link_utilisation_500ms": peak,
        "rebuilt_bytes_per_sec": rebuilt / transfer,
        "cpu": {"cores": os.cpu_count(), "busy_baseline": busy_base, "steal_baseline": steal_base,
                "busy_recovery": busy_rec, "steal_recovery": steal_rec,
                "osd_cpu_seconds_recovery": osd_cpu,
                "osd_cores_used_recovery": osd_cpu / (t_clean - t_out) if osd_cpu else None},
        "client": {
            "baseline_ops": len(lat["baseline"]), "recovery_ops": len(lat["recovery"]),
            "recovery_degraded_ops": degraded_during,
            "baseline_p50_s": percentile(lat["baseline"], 0.5), "baseline_p99_s": p99b,
            "degraded_ops": len(lat["degraded"]),
            "degraded_p50_s": percentile(lat["degraded"], 0.5), "degraded_p99_s": p99d,
            # In the degraded phase: the reads that needed the lost shard's bytes (ec-rados's
            # degraded flag) and the others, read as usual from PGs that are not clean.
            "degraded_reads_ops": len(lat["degraded_reads"]),
            "degraded_reads_p50_s": percentile(lat["degraded_reads"], 0.5),
            "degraded_direct_ops": len(lat["degraded_direct"]),
            "degraded_direct_p50_s": percentile(lat["degraded_direct"], 0.5),
            "recovery_p50_s": percentile(lat["recovery"], 0.5), "recovery_p99_s": p99r,
            "recovery_direct_p99_s": percentile(lat["recovery_direct"], 0.99),
            # One op in flight: the rate is 1 / mean latency, how much the load was slowed.
            "baseline_ops_per_sec": len(lat["baseline"]) / max(t_kill - t_b0 - 1.0, 1e-9),
            "recovery_ops_per_sec": len(lat["recovery"]) / max(t_clean - t_out, 1e-9),
            "baseline_over_5ms": sum(1 for x in lat["baseline"] if x > 0.005),
            "recovery_over_5ms": sum(1 for x in lat["recovery"] if x > 0.005),
            "p99_ratio": p99r / p99b if p99b and p99r else None,
            # The issue's target: during recovery against without it, same load and same data
            # state (the OSD down, not yet out: degraded, nothing recovering).
            "p99_ratio_degraded": p99r / p99d if p99d and p99r else None,
        },
    }
    if rebuilt:
        r["network_vs_minimum"] = r["network_per_rebuilt"] / minimum - 1
    return r


PAIRS = (("clay42", "rs42"), ("clay104", "rs104"))


def ratios(runs):
    out = []
    by = {(r["code"], r["stripe_unit_asked"], r.get("pipeline", "default")): r for r in runs}
    for clay, rs in PAIRS:
        for (code, su, pl), c in sorted(by.items()):
            if code != clay or (rs, su, pl) not in by:
                continue
            s = by[(rs, su, pl)]
            target = c["minimum_per_rebuilt"] / s["minimum_per_rebuilt"]
            tr = c["transfer_time_s"] / s["transfer_time_s"]
            cl = c["time_to_clean_s"] / s["time_to_clean_s"]
            out.append({
                "pair": f"{c['label']} / {s['label']}" +
                        ("" if pl == "default" else f" (pipeline {pl})"),
                "stripe_unit_asked": su,
                "stripe_units": [c["stripe_unit"], s["stripe_unit"]],
                "byte_ratio_target": target,
                "transfer_time_ratio": tr, "time_to_clean_ratio": cl,
                "network_bytes_ratio": c["network_bytes"] / s["network_bytes"]
                if s["network_bytes"] else None,
                "within_15pct": abs(tr / target - 1) <= 0.15,
            })
    return out


def pipeline_ratios(runs):
    """Issue 33: each code's chained runs (auto, on) against its direct one (off), same run."""
    out = []
    by = {(r["code"], r["stripe_unit_asked"], r["pipeline"]): r for r in runs}
    for c in runs:  # in the table's order
        code, su, pl = c["code"], c["stripe_unit_asked"], c["pipeline"]
        o = by.get((code, su, "off"))
        if pl not in ("on", "auto") or o is None:
            continue

        def ratio(key, sub=None):
            a, b = (o.get(sub) or {}) if sub else o, (c.get(sub) or {}) if sub else c
            return a[key] / b[key] if a.get(key) and b.get(key) else None
        cl, ol = c["client"], o["client"]
        out.append({
            "label": c["label"], "stripe_unit_asked": su, "pipeline": pl,
            "transfer_speedup": ratio("transfer_time_s"),
            "clean_speedup": ratio("time_to_clean_s"),
            "per_object_speedup": ratio("pull_seconds_per_object"),
            "network_bytes_ratio": c["network_bytes"] / o["network_bytes"]
            if o["network_bytes"] else None,
            "busiest_link_per_rebuilt": [o["busiest_link_per_rebuilt"],
                                         c["busiest_link_per_rebuilt"]],
            "degraded_read_speedup": ratio("degraded_reads_p50_s", "client"),
            # A degraded read against a plain read of the same size in the same run: healthy
            # (before the kill), and the degraded phase's reads that did not need the lost shard.
            "degraded_over_healthy": [
                x["degraded_reads_p50_s"] / x["baseline_p50_s"]
                if x.get("degraded_reads_p50_s") and x.get("baseline_p50_s") else None
                for x in (ol, cl)],
            "degraded_over_plain": [
                x["degraded_reads_p50_s"] / x["degraded_direct_p50_s"]
                if x.get("degraded_reads_p50_s") and x.get("degraded_direct_p50_s") else None
                for x in (ol, cl)],
        })
    return out


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def mib(v):
    return f"{v / 2**20:.0f}"


def markdown(res):
    runs, lines = res["runs"], []
    p = res["params"]
    lines.append(f"{p['label']}")
    lines.append("")
    lines.append("| code | stripe unit | rebuilt MiB | time to clean s | transfer s | network / rebuilt "
                 "(min) | wire into hosts / rebuilt | helper device / rebuilt | busiest link (peak 0.5 s) | "
                 "CPU busy (OSDs' cores) | client p99 healthy / during recovery | client p99 degraded without "
                 "recovery / during recovery (target <= 1.5) |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        cl = r["client"]
        p99 = "-" if cl["p99_ratio"] is None else \
            f"{cl['baseline_p99_s']*1e3:.2f} / {cl['recovery_p99_s']*1e3:.2f} ms = " \
            f"{cl['p99_ratio']:.2f}"
        p99d = "-" if cl.get("p99_ratio_degraded") is None else \
            f"{cl['degraded_p99_s']*1e3:.2f} / {cl['recovery_p99_s']*1e3:.2f} ms = " \
            f"{cl['p99_ratio_degraded']:.2f}"
        su = str(r["stripe_unit"]) + ("" if r["stripe_unit"] == r["stripe_unit_asked"]
                                      else f" (asked {r['stripe_unit_asked']})")
        cpu = r["cpu"]
        busy = "-" if cpu["busy_recovery"] is None else f"{cpu['busy_recovery']*100:.0f}%"
        if cpu["osd_cores_used_recovery"] is not None:
            busy += f" ({cpu['osd_cores_used_recovery']:.2f})"
        name = r["label"] if r.get("pipeline", "default") == "default" else \
            f"{r['label']} pipeline {r['pipeline']}"
        lines.append(
            f"| {name} | {su} | {mib(r['rebuilt_bytes'])} | {r['time_to_clean_s']:.1f} | "
            f"{r['transfer_time_s']:.1f} | {fmt(r['network_per_rebuilt'], '.3f')} "
            f"({r['minimum_per_rebuilt']:.3g}) | {fmt(r['wire_per_rebuilt'], '.3f')} | "
            f"{fmt(r['device_per_rebuilt'], '.3f')} | {r['busiest_link_utilisation']*100:.0f}% "
            f"({r['peak_link_utilisation_500ms']*100:.0f}%) | "
            f"{busy} | {p99} | {p99d} |")
    if any(r.get("pipeline", "default") != "default" or r.get("read_size") for r in runs):
        lines.append("")
        lines.append("| code | stripe unit | osd_repair_pipeline | s per object rebuilt | busiest link "
                     "bytes / rebuilt | read p50 healthy ms | degraded phase: plain read p50 ms | "
                     "degraded read p50 ms (reads) |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for r in runs:
            cl = r["client"]

            def ms(v):
                return "-" if v is None else f"{v * 1e3:.1f}"
            lines.append(
                f"| {r['label']} | {r['stripe_unit']} | {r.get('pipeline', 'default')} | "
                f"{fmt(r.get('pull_seconds_per_object'), '.3f')} | "
                f"{fmt(r.get('busiest_link_per_rebuilt'), '.2f')} | {ms(cl.get('baseline_p50_s'))} | "
                f"{ms(cl.get('degraded_direct_p50_s'))} | {ms(cl.get('degraded_reads_p50_s'))} "
                f"({cl.get('degraded_reads_ops', 0)}) |")
    if res.get("pipeline_ratios"):
        lines.append("")
        lines.append("| code | stripe unit | chain | recovery transfer: direct / chain | per object: "
                     "direct / chain | busiest link / rebuilt: direct, chain (target <= 1.1) | "
                     "degraded read p50: direct / chain | degraded / healthy read: direct, chain "
                     "(target <= 1.3) | degraded / plain read in the degraded phase: direct, chain |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for q in res["pipeline_ratios"]:
            b, h, pl = q["busiest_link_per_rebuilt"], q["degraded_over_healthy"], \
                q["degraded_over_plain"]
            lines.append(
                f"| {q['label']} | {q['stripe_unit_asked']} | {q['pipeline']} | "
                f"{fmt(q['transfer_speedup'], '.2f')} | {fmt(q['per_object_speedup'], '.2f')} | "
                f"{fmt(b[0], '.2f')}, {fmt(b[1], '.2f')} | {fmt(q['degraded_read_speedup'], '.2f')} | "
                f"{fmt(h[0], '.2f')}, {fmt(h[1], '.2f')} | {fmt(pl[0], '.2f')}, {fmt(pl[1], '.2f')} |")
    if res["ratios"]:
        lines.append("")
        lines.append("| CLAY / RS | stripe unit | transfer time ratio | time to clean ratio | "
                     "network bytes ratio | byte ratio (target, +-15%) | met |")
        lines.append("|---|---|---|---|---|---|---|")
        for q in res["ratios"]:
            lines.append(f"| {q['pair']} | {q['stripe_unit_asked']} | "
                         f"{q['transfer_time_ratio']:.3f} | {q['time_to_clean_ratio']:.3f} | "
                         f"{fmt(q['network_bytes_ratio'], '.3f')} | {q['byte_ratio_target']:.3f} | "
                         f"{'yes' if q['within_15pct'] else 'no'} |")
    return "\n".join(lines) + "\n"


def plots(res, out):
    runs = res["runs"]
    def name(r):
        pl = r.get("pipeline", "default")
        return r["label"] if pl == "default" else f"{r['label']} {pl}"
    codes = []
    for r in runs:
        if name(r) not in codes:
            codes.append(name(r))
    sus = sorted({r["stripe_unit_asked"] for r in runs}, reverse=True)
    by = {(name(r), r["stripe_unit_asked"]): r for r in runs}
    dat = os.path.join(out, "recovery_plot.dat")
    with open(dat, "w") as f:
        f.write("# stripe_unit " + " ".join(f'"{c}"' for c in codes) + " (time s; then MiB)\n")
        for what in ("transfer_time_s", "network_bytes", "helper_device_bytes"):
            for su in sus:
                vals = []
                for c in codes:
                    r = by.get((c, su))
                    v = "NaN" if r is None else r[what]
                    if r is not None and what != "transfer_time_s":
                        v = v / 2**20
                    vals.append(str(v))
                f.write(f'"su {su // 1024} KiB" ' + " ".join(vals) + "\n")
            f.write("\n\n")
    p = res["params"]
    title = p['label'].split(', ')[0]
    if p.get("osd_opts"):
        title += " " + " ".join(p["osd_opts"])
    common = (
        "set terminal pngcairo size 900,520 noenhanced font ',10'\n"
        "set style data histogram\nset style histogram cluster gap 1\n"
        "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\n"
        "set key top left\nset yrange [0:*]\n")
    cols = " , ".join(f"'{dat}' index IDX using {i + 2}:xtic(1) title '{c}'"
                      for i, c in enumerate(codes))
    script = common + (
        f"set output '{out}/recovery_time.png'\n"
        f"set title \"Rebuild time after one OSD is out (transfer time)\\n{title}\"\n"
        "set ylabel 'seconds'\n"
        f"plot {cols.replace('IDX', '0')}\n"
        f"set output '{out}/recovery_bytes.png'\n"
        f"set title \"Bytes received from helpers by the rebuilding OSDs\\n{title}\"\n"
        "set ylabel 'MiB'\n"
        f"plot {cols.replace('IDX', '1')}\n")
    if any(r.get("read_size") for r in runs):
        # Issue 33: per run, the client's reads of READ_SIZE (p50): healthy, the degraded phase's
        # plain ones, its degraded ones; and one object's repair (with one pull at a time).
        rdat = os.path.join(out, "recovery_reads.dat")
        with open(rdat, "w") as f:
            f.write("# run healthy_ms plain_in_degraded_ms degraded_ms per_object_s\n")
            for r in runs:
                cl = r["client"]
                vals = [cl.get("baseline_p50_s"), cl.get("degraded_direct_p50_s"),
                        cl.get("degraded_reads_p50_s")]
                ms = ["NaN" if v is None else f"{v * 1e3:.1f}" for v in vals]
                per = r.get("pull_seconds_per_object")
                f.write(f'"{name(r)}" ' + " ".join(ms) + f" {'NaN' if per is None else per}\n")
        script += (
            "set xtics rotate by -30\n"
            f"set output '{out}/recovery_reads.png'\n"
            f"set title \"Client reads of {runs[0]['read_size']} bytes (p50), one OSD down\\n{title}\"\n"
            "set ylabel 'ms'\n"
            f"plot '{rdat}' using 2:xtic(1) title 'healthy', '' using 3 title "
            "'degraded phase, plain', '' using 4 title 'degraded phase, degraded'\n"
            f"set output '{out}/recovery_per_object.png'\n"
            f"set title \"One object's repair (recovery, one pull at a time)\\n{title}\"\n"
            "set ylabel 'seconds'\n"
            f"plot '{rdat}' using 5:xtic(1) title 'time per object rebuilt'\n")
    with open(os.path.join(out, "recovery_plot.gp"), "w") as f:
        f.write(script)
    subprocess.run(["gnuplot", os.path.join(out, "recovery_plot.gp")], check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("out")
    ap.add_argument("--label", default="")
    ap.add_argument("--plots", action="store_true")
    ap.add_argument("--replot", action="store_true",
                    help="redraw the plots of OUT_DIR/recovery.json (WORK_DIR is not read)")
    a = ap.parse_args()
    if a.replot:
        plots(json.load(open(os.path.join(a.out, "recovery.json"))), a.out)
        return 0
    tags = [os.path.basename(p)[len("meta_"):-len(".json")]
            for p in sorted(glob.glob(f"{a.work}/meta_*.json"))]
    params = json.load(open(f"{a.work}/params.json"))
    params["label"] = a.label or params.get("label", "")
    order = {c: i for i, c in enumerate(params.get("codes", []))}
    runs = [analyse(a.work, t) for t in tags]
    porder = {"off": 0, "auto": 1, "on": 2}
    runs.sort(key=lambda r: (-r["stripe_unit_asked"], order.get(r["code"], 99),
                             porder.get(r.get("pipeline"), 3)))
    res = {"params": params, "runs": runs, "ratios": ratios(runs),
           "pipeline_ratios": pipeline_ratios(runs)}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "recovery.json"), "w") as f:
        json.dump(res, f, indent=1)
    md = markdown(res)
    with open(os.path.join(a.out, "recovery.md"), "w") as f:
        f.write(md)
    print(md, end="")
    if a.plots and runs:
        plots(res, a.out)
        print(f"plots: {a.out}/recovery_time.png, {a.out}/recovery_bytes.png")


if __name__ == "__main__":
    sys.exit(main())
