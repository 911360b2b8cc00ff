#!/usr/bin/env python3
"""Markdown tables of an ec-bench run: throughput per code, chunk size and k+m.

  tables.py EC_BENCH_JSON [--out TABLES.md]

One table per operation (encode, decode 1 erasure, decode 2 erasures, repair of one chunk). A
row is a code (or a raw-library baseline) at one chunk size; a cell is "warm / cold", the median
of the repetitions in GB/s (10^9 bytes per second) of the bytes the operation counts: data bytes
(k x chunk) for encode, bytes rebuilt for decode and repair. A code measured at a rounded-up
chunk size (CLAY, liberation, blaum_roth) is listed under the table's size it was rounded from,
with the real size in the row label.
"""
import argparse
import sys

import ecbench_results as R

OPERATIONS = (
    ("Encode", "BM_Encode", {}, ("BM_RawIsaEncode", "BM_RawJerasureMatrixEncode",
                                  "BM_RawJerasureScheduleEncode")),
    ("Decode, 1 erasure (chunk 0)", "BM_Decode", {"erasures": 1},
     ("BM_RawIsaDecode", "BM_RawJerasureMatrixDecode", "BM_RawJerasureScheduleDecodeLazy")),
    ("Decode, 2 erasures (chunks 0, 1)", "BM_Decode", {"erasures": 2},
     ("BM_RawIsaDecode", "BM_RawJerasureMatrixDecode", "BM_RawJerasureScheduleDecodeLazy")),
    ("Repair of chunk 0 (minimum_to_decode plan, decode())", "BM_Repair", {}, ()),
)


def code_label(r):
    p = r.params
    if p["kind"].startswith("BM_Raw"):
        label = p["kind"][3:]
        if "tables" in p:
            label += f" tables:{p['tables']}"
        if "technique" in p:
            label += f" {p['technique']}"
    else:
        label = p["plugin"]
        if "scalar_mds" in p:
            label += f"(mds={p['scalar_mds']})"
        label += f" {p['technique']}"
        if "c" in p:
            label += f" c={p['c']}"
    if "packetsize" in p:
        label += f" ps={p['packetsize']}"
    return label


def cell(warm, cold):
    def fmt(r):
        if r is None:
            return "-"
        if r.error:
            return "error"
        return f"{R.gbps(r.median):.2f}"
    return f"{fmt(warm)} / {fmt(cold)}"


def table(records, title, kind, extra, raw_kinds):
    geoms = [(k, m) for k, m in R.GEOMETRIES]
    rows = {}
    order = []
    for r in records:
        if r.kind != kind and r.kind not in raw_kinds:
            continue
        if any(r.get(key) != value for key, value in extra.items()):
            continue
        key = (code_label(r), r.nominal)
        if key not in rows:
            rows[key] = {}
            order.append(key)
        rows[key][(r.get("k"), r.get("m"), r.get("set"))] = r
    order.sort(key=lambda key: (key[1], key[0].startswith("Raw"), key[0]))
    lines = [f"### {title}", "",
             "| code | chunk | " + " | ".join(f"{k}+{m}" for k, m in geoms) + " |",
             "|---|---:|" + "---:|" * len(geoms)]
    for key in order:
        label, nominal = key
        cells = rows[key]
        actual = sorted({r.get("chunk") for r in cells.values()})
        chunk = str(nominal) + ("" if actual == [nominal] else
                                " (" + ", ".join(str(a) for a in actual) + ")")
        lines.append(f"| {label} | {chunk} | " + " | ".join(
            cell(cells.get((k, m, "warm")), cells.get((k, m, "cold"))) for k, m in geoms) + " |")
    lines.append("")
    return "\n".join(lines)


def render(records):
    parts = []
    for title, kind, extra, raw in OPERATIONS:
        parts.append(table(records, title, kind, extra, raw))
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ec_bench_json")
    ap.add_argument("--out")
    args = ap.parse_args()
    _, records = R.load(args.ec_bench_json)
    text = render(records)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
