#!/usr/bin/env python3
"""Summarises bench/compare_ceph.sh timings: median and min-max per program, ratio per profile.

Input: times.tsv (profile, program, op, run, seconds) and checks.tsv (profile, what, result...).
Output: a table on stdout and a JSON file. Exit status 1 if any byte comparison differed.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("times")
    ap.add_argument("checks")
    ap.add_argument("--size-mib", type=int, required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--ceph-version", default="unknown")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    times = defaultdict(list)
    order = []
    with open(args.times) as f:
        for line in f:
            name, prog, op, _run, sec = line.rstrip("\n").split("\t")
            times[(name, prog, op)].append(float(sec))
            if name not in order:
                order.append(name)
    checks = defaultdict(dict)
    with open(args.checks) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            checks[parts[0]][parts[1]] = parts[2:]

    results = []
    failed = False
    print(f"ec-tool vs ceph-erasure-code-tool {args.ceph_version}: {args.size_mib} MiB in /dev/shm, "
          f"whole process wall time, median [min-max] of {args.runs} alternated runs")
    print(f"{'profile':28} {'op':6} {'stripe_unit':>11} {'ceph s':>22} {'ecstore s':>22} "
          f"{'ratio':>6}  bytes")
    for name in order:
        info = checks[name]
        profile = info.get("profile", ["", "", ""])
        su = profile[1].split("=", 1)[1] if len(profile) > 1 else ""
        for op in ("encode", "decode"):
            ceph = times.get((name, "ceph", op), [])
            ours = times.get((name, "ecstore", op), [])
            if not ceph or not ours:
                continue
            cm, om = statistics.median(ceph), statistics.median(ours)
            same = (info.get("shards") if op == "encode" else info.get("decoded")) or ["?"]
            if same[0] != "identical":
                failed = True
            entry = {
                "profile_name": name,
                "profile": profile[0] if profile else "",
                "stripe_unit": int(su) if su.isdigit() else su,
                "op": op,
                "ceph_seconds": {"median": cm, "min": min(ceph), "max": max(ceph), "runs": ceph},
                "ecstore_seconds": {"median": om, "min": min(ours), "max": max(ours), "runs": ours},
                "ratio_ceph_over_ecstore": cm / om if om > 0 else None,
                "bytes": same[0],
            }
            results.append(entry)
            fmt = lambda v: f"{statistics.median(v):6.3f} [{min(v):.3f}-{max(v):.3f}]"
            print(f"{name:28} {op:6} {su:>11} {fmt(ceph):>22} {fmt(ours):>22} "
                  f"{cm / om:6.2f}  {same[0]}")
    with open(args.out, "w") as f:
        json.dump({"size_mib": args.size_mib, "runs": args.runs,
                   "ceph_version": args.ceph_version, "results": results}, f, indent=1)
    print(f"JSON: {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
