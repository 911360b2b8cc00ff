#!/usr/bin/env python3
"""Regenerates ceph_16_2_15_vectors.txt: CLAY shards made by Ceph's own ceph-erasure-code-tool
(Debian ceph-osd 16.2.15) for profiles the shared corpus lacks (scalar_mds=isa, cauchy and
RAID6 techniques, shortened codes, d < k+m-1, wide codes).

The object of each vector is `object_size` bytes of a xorshift64 stream (seeded by `seed`, one
byte per step: state ^= state << 13; state ^= state >> 7; state ^= state << 17; byte = state &
0xff). Each line records the 64-bit FNV-1a hash of every shard file the tool wrote; clay_test
regenerates the object, encodes it stripe by stripe and compares the hashes.

Usage: make_ceph_vectors.py > ceph_16_2_15_vectors.txt   (needs ceph-erasure-code-tool)
"""
import os
import subprocess
import sys
import tempfile

# (profile, stripe_unit, object_size, seed)
VECTORS = [
    ("plugin=clay,k=4,m=2,scalar_mds=isa", 4096, 50000, 1),
    ("plugin=clay,k=4,m=2,scalar_mds=isa,technique=cauchy", 4096, 50000, 2),
    ("plugin=clay,k=6,m=3,d=7,scalar_mds=isa,technique=cauchy", 16384, 200000, 3),
    ("plugin=clay,k=10,m=4,d=13", 8192, 300000, 4),
    ("plugin=clay,k=10,m=4,d=13,scalar_mds=isa", 8192, 200000, 5),
    ("plugin=clay,k=8,m=4,d=11", 4096, 100000, 6),
    ("plugin=clay,k=8,m=4,d=9", 8192, 100000, 7),
    ("plugin=clay,k=5,m=3,d=6", 4096, 70000, 8),
    ("plugin=clay,k=7,m=4,d=8", 8192, 90000, 9),
    ("plugin=clay,k=3,m=3,d=4", 2048, 30000, 10),
    ("plugin=clay,k=5,m=2,technique=reed_sol_r6_op", 4096, 40000, 11),
    ("plugin=clay,k=4,m=2,technique=cauchy_good", 524288, 2097152, 12),
    ("plugin=clay,k=3,m=2,technique=cauchy_orig", 524288, 1572864, 13),
    ("plugin=clay,k=3,m=2,technique=liber8tion", 524288, 1572864, 14),
    ("plugin=clay,k=4,m=3,d=5,scalar_mds=isa,technique=cauchy", 4096, 40000, 15),
]

MASK = (1 << 64) - 1


def stream(seed, n):
    state = seed
    out = bytearray(n)
    for i in range(n):
        state ^= (state << 13) & MASK
        state ^= state >> 7
        state ^= (state << 17) & MASK
        out[i] = state & 0xFF
    return bytes(out)


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & MASK
    return h


def main():
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        conf = os.path.join(tmp, "ceph.conf")
        open(conf, "w").close()
        env["CEPH_CONF"] = conf
        print("# profile stripe_unit object_size seed fnv1a64(shard 0) fnv1a64(shard 1) ...")
        print("# made by make_ceph_vectors.py with ceph-erasure-code-tool (ceph-osd 16.2.15)")
        for profile, unit, size, seed in VECTORS:
            path = os.path.join(tmp, "obj")
            with open(path, "wb") as f:
                f.write(stream(seed, size))
            n = None
            for kv in profile.split(","):
                key, value = kv.split("=")
                if key == "k":
                    k = int(value)
                if key == "m":
                    m = int(value)
            n = k + m
            shards = ",".join(str(i) for i in range(n))
            r = subprocess.run(["ceph-erasure-code-tool", "encode", profile, str(unit), shards, path],
                               env=env, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{profile}: ceph-erasure-code-tool failed: {r.stderr.strip()}")
            hashes = []
            for i in range(n):
                with open(f"{path}.{i}", "rb") as f:
                    hashes.append(f"{fnv1a(f.read()):016x}")
            print(profile, unit, size, seed, " ".join(hashes))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
