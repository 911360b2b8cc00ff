#!/usr/bin/env python3
"""Replaces the generated sections of bench/README.md with the files of a results directory.

  update_readme.py README.md RESULTS_DIR

Sections are delimited by "<!-- BEGIN generated:NAME -->" and "<!-- END generated:NAME -->":
  run      when and where ec-bench ran (from the JSON context)
  targets  RESULTS_DIR/targets.md
  tables   RESULTS_DIR/tables.md
Text outside the markers is left alone.
"""
import os
import re
import sys

import ecbench_results


def run_section(results):
    ctx, _ = ecbench_results.load(os.path.join(results, "ec_bench.json.gz"))
    caches = ", ".join(f"L{c['level']} {c['type'].lower()} {c['size'] // 1024} KiB"
                       f"{' (shared by ' + str(c['num_sharing']) + ')' if c.get('num_sharing', 0) > 1 else ''}"
                       for c in ctx.get("caches", []))
    load = ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", []))
    lines = [
        f"- ec-bench run of {ctx.get('date', '?')} on {ctx.get('host_name', '?')}: "
        f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz; {caches}.",
        f"- Load average when it started: {load} (other engineers compile on this machine).",
        f"- Cold working set: {int(ctx.get('cold_working_set_bytes', 0)) >> 20} MiB. "
        f"Google Benchmark library: Debian's build, which reports itself as "
        f"'{ctx.get('library_build_type', '?')}' (the timing loop is ours, built -O3).",
    ]
    return "\n".join(lines) + "\n"


def main():
    readme, results = sys.argv[1], sys.argv[2]
    with open(readme) as f:
        text = f.read()
    sections = {"run": run_section(results)}
    for name in ("targets", "tables"):
        with open(os.path.join(results, f"{name}.md")) as f:
            sections[name] = f.read()
    for name, body in sections.items():
        pattern = re.compile(rf"(<!-- BEGIN generated:{name} -->\n).*?(<!-- END generated:{name} -->)",
                             re.S)
        if not pattern.search(text):
            print(f"update_readme.py: no generated:{name} section in {readme}", file=sys.stderr)
            continue
        text = pattern.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text)
    with open(readme, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
