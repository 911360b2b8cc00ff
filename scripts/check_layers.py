#!/usr/bin/env python3
"""Fails on an #include that goes against the direction of the layers in design.md.

Data flows one way: tools -> cluster client -> msg -> (network) -> osd/daemon -> osd/pg ->
osd/shard -> osd/store, with recovery -> ec <- plugins beneath and everything -> common. Each
folder below lists the folders of ours it may include (its own always); an include of any other
folder of the repository is an error. Test files (*_test.cc and test support beside the code)
follow the same rules as the code beside them, and may also use the shared test support in
tests/support/; production code never includes it.

Usage: scripts/check_layers.py [REPO_ROOT]   (exit 0: clean; 1: the violations, one per line)
"""
import pathlib
import re
import sys

BASE = ["common"]
EC = BASE + ["ec"]
# folder prefix -> folders it may include. The longest matching prefix applies.
ALLOWED = {
    "common": [],
    "ec": BASE,
    # A plugin: ec/ and its own files only, never another plugin's.
    "plugins/jerasure": EC,
    "plugins/isa": EC,
    "plugins/clay": EC,
    "plugins/lrc": EC,
    "plugins/shec": EC,
    "plugins/test": EC,
    "plugins/plugin_entry.cc": EC,
    "recovery": EC,
    "msg": EC,
    "osd/store": EC,
    "osd/shard": EC + ["osd/store", "msg"],
    # The primary reaches the store only through the shard service (osd/shard/shard_service.h).
    "osd/pg": EC + ["osd/shard", "msg", "recovery", "cluster/map", "cluster/placement"],
    "osd/daemon": EC + ["osd/pg", "osd/shard", "osd/store", "msg", "cluster"],
    "cluster/etcd": EC,
    "cluster/placement": EC,
    "cluster/map": EC + ["cluster/etcd", "cluster/placement"],
    "cluster/config": EC + ["cluster/etcd", "cluster/map"],
    "cluster/liveness": EC + ["cluster/etcd", "cluster/map"],
    # The auth database in etcd, sealed with msg/auth's cryptography (keys, caps, AES-GCM).
    "cluster/auth": EC + ["cluster/etcd", "msg/auth"],
    "cluster/admin": EC + ["cluster/etcd", "cluster/map", "cluster/placement", "cluster/liveness",
                          "cluster/config", "cluster/auth", "msg/auth"],
    "cluster/client": EC + ["cluster/etcd", "cluster/map", "cluster/placement", "msg"],
    "tools/ec_tool": EC + ["recovery", "plugins"],
    "tools/ec_admin": EC + ["cluster"],
    "tools/ec_rados": EC + ["cluster"],
    # ec-osd-client, a debugging tool, speaks the protocol to one OSD.
    "tools/osd_client": EC + ["msg"],
    # Benchmarks and whole-system tests may use anything.
    "bench": None,
    "tests": None,
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# What test files may include beyond their folder's rule (besides tests/support/): the PG tests
# build real stores to put shard services on.
TEST_EXTRA = {"osd/pg": ["osd/store"]}
TEST_FILE = re.compile(r"(_test\.cc|_test_util\.(h|cc)|/testing/.*|_fuzzer\.cc)$")


def rule_for(rel):
    best = None
    for prefix in ALLOWED:
        if rel == prefix or rel.startswith(prefix + "/"):
            if best is None or len(prefix) > len(best):
                best = prefix
    return best


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    if not root.is_dir():
        print(f"check_layers: {root} is not a directory (usage: check_layers.py [REPO_ROOT])",
              file=sys.stderr)
        return 2
    top_folders = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}
    errors = []
    checked = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".h", ".cc") or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0].startswith("build") or rel.startswith("."):
            continue
        prefix = rule_for(rel)
        if prefix is None:
            errors.append(f"{rel}: no layer rule covers this file (add its folder to {__file__})")
            continue
        allowed = ALLOWED[prefix]
        own = prefix.rsplit("/", 1)[0] if prefix.endswith(".cc") else prefix
        checked += 1
        if allowed is None:
            continue
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if target.split("/")[0] not in top_folders:
                continue  # a system or third-party header
            if target.startswith(own + "/"):
                continue  # its own folder
            if any(target == a or target.startswith(a + "/") for a in allowed):
                continue
            if TEST_FILE.search(rel) and any(
                    target.startswith(a + "/") for a in ["tests/support"] + TEST_EXTRA.get(prefix, [])):
                continue
            errors.append(f"{rel}:{lineno}: includes \"{target}\", against the layers "
                          f"({prefix} may include {', '.join(allowed) or 'nothing else of ours'})")
    for e in errors:
        print(e)
    print(f"check_layers: {checked} files, {len(errors)} violation(s)", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
