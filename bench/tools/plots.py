#!/usr/bin/env python3
"""Plots of an ec-bench run with gnuplot (Debian package gnuplot-nox; bench/setup.sh installs it).

  plots.py EC_BENCH_JSON --outdir DIR

Per plugin (isa, jerasure, clay), two PNGs of four panels (encode, decode 1 erasure, decode 2
erasures, repair of one chunk), y = GB/s (10^9 bytes/s) of the counted bytes (data bytes for
encode, bytes rebuilt otherwise), median of the repetitions:
  DIR/<plugin>_by_km.png     x = k+m, 64 KiB chunks; solid = warm, dashed = cold working set
  DIR/<plugin>_by_chunk.png  x = chunk size (log scale), at 4+2 (where every technique exists)
Encode panels also show the raw-library baselines. The gnuplot scripts are kept beside the PNGs
(DIR/plotdata/*.gp) so a plot can be restyled without rerunning the benchmarks.
"""
import argparse
import os
import subprocess
import sys

import ecbench_results as R

PANELS = (
    ("encode", "BM_Encode", {}),
    ("decode, 1 erasure", "BM_Decode", {"erasures": 1}),
    ("decode, 2 erasures", "BM_Decode", {"erasures": 2}),
    ("repair of one chunk", "BM_Repair", {}),
)

BASELINES = {
    "isa": [("raw ec_encode_data", "BM_RawIsaEncode", {})],
    "jerasure": [("raw jerasure_matrix_encode rsv", "BM_RawJerasureMatrixEncode",
                  {"technique": "reed_sol_van"}),
                 ("raw jerasure_schedule_encode cauchy_good", "BM_RawJerasureScheduleEncode",
                  {"technique": "cauchy_good"})],
    "clay": [("isa reed_sol_van (plugin)", "BM_Encode",
              {"plugin": "isa", "technique": "reed_sol_van"})],
}


def variants(records, plugin):
    """(label, params) of each technique of a plugin, in first-seen order."""
    seen = []
    for r in records:
        if r.kind == "BM_Encode" and r.get("plugin") == plugin:
            params = {"plugin": plugin, "technique": r.get("technique")}
            label = r.get("technique")
            if r.get("scalar_mds"):
                params["scalar_mds"] = r.get("scalar_mds")
                label = f"{label} mds={r.get('scalar_mds')}"
            if (label, params) not in seen:
                seen.append((label, params))
    return seen


def series_by_km(records, kind, params, s, chunk=65536):
    points = []
    for i, (k, m) in enumerate(R.GEOMETRIES):
        r = R.one(records, kind, k=k, m=m, set=s, nominal=chunk, **params)
        if r is not None:
            points.append((i, R.gbps(r.median)))
    return points


def series_by_chunk(records, kind, params, s, k, m):
    points = []
    for r in R.find(records, kind, k=k, m=m, set=s, **params):
        if r.rates:
            points.append((r.get("chunk"), R.gbps(r.median)))
    return sorted(points)


# The by-chunk plots are drawn at 4+2, the one geometry where every technique exists (Ceph
# restricts reed_sol_r6_op and the liberation family to m=2).
BY_CHUNK_GEOMETRY = (4, 2)


def geometry_for(records, params):
    k, m = BY_CHUNK_GEOMETRY
    return (k, m) if R.find(records, "BM_Encode", k=k, m=m, **params) else None


class Script:
    def __init__(self):
        self.blocks = []
        self.n = 0

    def data(self, points):
        self.n += 1
        name = f"$d{self.n}"
        body = "\n".join(f"{x} {y:.4f}" for x, y in points)
        self.blocks.append(f"{name} << EOD\n{body}\nEOD")
        return name


def panel_lines(script, records, plugin, kind, extra, by, color_of):
    lines = []
    for label, params in variants(records, plugin):
        p = {**params, **extra}
        if by == "km":
            for s, dash in (("warm", 1), ("cold", 2)):
                pts = series_by_km(records, kind, p, s)
                if len(pts) < 2:
                    continue
                lines.append(f"{script.data(pts)} using 1:2 with linespoints dt {dash} lw 2 "
                             f"lc {color_of(label)} pt 7 ps 0.6 title '{label} {s}'")
        else:
            g = geometry_for(records, params)
            if g is None:
                continue
            for s, dash in (("warm", 1), ("cold", 2)):
                pts = series_by_chunk(records, kind, p, s, *g)
                if len(pts) < 2:
                    continue
                lines.append(f"{script.data(pts)} using 1:2 with linespoints dt {dash} lw 2 "
                             f"lc {color_of(label)} pt 7 ps 0.6 "
                             f"title '{label} {g[0]}+{g[1]} {s}'")
    if kind == "BM_Encode":
        for label, bkind, bparams in BASELINES.get(plugin, []):
            if by == "km":
                pts = series_by_km(records, bkind, bparams, "warm")
                title = f"{label} warm"
            else:
                g = BY_CHUNK_GEOMETRY
                pts = series_by_chunk(records, bkind, bparams, "warm", *g)
                title = f"{label} {g[0]}+{g[1]} warm"
            if len(pts) >= 2:
                lines.append(f"{script.data(pts)} using 1:2 with lines dt 3 lw 2 "
                             f"lc {color_of(label)} title '{title}'")
    return lines


def plot(records, plugin, by, outdir):
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
               "#17becf", "#7f7f7f", "#bcbd22"]
    colors = {}

    def color_of(label):
        if label not in colors:
            colors[label] = palette[len(colors) % len(palette)]
        return f"rgb '{colors[label]}'"

    script = Script()
    panels = []
    for title, kind, extra in PANELS:
        lines = panel_lines(script, records, plugin, kind, extra, by, color_of)
        panels.append((title, lines))
    if not any(lines for _, lines in panels):
        return None
    png = os.path.join(outdir, f"{plugin}_by_{by}.png")
    out = ["set terminal pngcairo noenhanced size 1800,1100 font 'sans,10'",
           f"set output '{png}'", *script.blocks,
           "set grid", "set key outside right top font 'sans,7' spacing 0.9",
           "set ylabel 'GB/s (10^9 bytes/s)'", "set yrange [0:*]"]
    if by == "km":
        labels = ", ".join(f"'{k}+{m}' {i}" for i, (k, m) in enumerate(R.GEOMETRIES))
        out += [f"set xtics ({labels})", "set xrange [-0.3:4.3]", "set xlabel 'k+m'"]
        subtitle = "64 KiB chunks"
        if plugin == "clay":
            subtitle += " (rounded up to its alignment)"
    else:
        out += ["set logscale x 2", "set xlabel 'chunk size'",
                "set xtics ('4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, "
                "'1 MiB' 1048576)", "set xrange [3000:1500000]"]
        subtitle = "against chunk size at 4+2"
    out.append(f"set multiplot layout 2,2 title '{plugin}: throughput, {subtitle}; "
               "solid warm, dashed cold, dotted raw baseline' font 'sans,12'")
    for title, lines in panels:
        out.append(f"set title '{title}'")
        if lines:
            out.append("plot " + ", \\\n     ".join(lines))
        else:
            out.append("set label 1 'no data' at graph 0.45, 0.5")
            out.append("plot NaN notitle")
            out.append("unset label 1")
    out.append("unset multiplot")
    gp_dir = os.path.join(outdir, "plotdata")
    os.makedirs(gp_dir, exist_ok=True)
    gp = os.path.join(gp_dir, f"{plugin}_by_{by}.gp")
    with open(gp, "w") as f:
        f.write("\n".join(out) + "\n")
    subprocess.run(["gnuplot", gp], check=True)
    return png


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ec_bench_json")
    ap.add_argument("--outdir", required=True)
    args = ap.parse_args()
    _, records = R.load(args.ec_bench_json)
    os.makedirs(args.outdir, exist_ok=True)
    for plugin in ("isa", "jerasure", "clay"):
        for by in ("km", "chunk"):
            png = plot(records, plugin, by, args.outdir)
            if png:
                print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
