"""Reads ec-bench's Google Benchmark JSON (--benchmark_out) into one record per benchmark.

A benchmark name is "BM_Kind/name:value/name:value/..."; every repetition of it is collected and
summarised as the median, min and max of bytes_per_second (data bytes: k x chunk for encode, bytes
rebuilt for decode and repair) and of the other counters. Benchmarks that stopped with an error
are kept with their message and no figures.
"""
import gzip
import json
import statistics

NOMINAL_CHUNKS = (4096, 65536, 1048576)
GEOMETRIES = ((4, 2), (6, 3), (8, 3), (10, 4), (12, 4))


def parse_name(name):
    parts = name.split("/")
    params = {"kind": parts[0]}
    for part in parts[1:]:
        if ":" in part:
            key, value = part.split(":", 1)
            params[key] = int(value) if value.isdigit() else value
    return params


def nominal_chunk(chunk):
    """The table's chunk size a (possibly rounded-up) chunk size was derived from."""
    return max(n for n in NOMINAL_CHUNKS if n <= chunk) if chunk >= NOMINAL_CHUNKS[0] else chunk


class Record:
    def __init__(self, name):
        self.name = name
        self.params = parse_name(name)
        self.rates = []  # bytes_per_second of each repetition
        self.counters = {}
        self.error = None

    @property
    def kind(self):
        return self.params["kind"]

    def get(self, key, default=None):
        return self.params.get(key, default)

    @property
    def median(self):
        return statistics.median(self.rates) if self.rates else None

    @property
    def low(self):
        return min(self.rates) if self.rates else None

    @property
    def high(self):
        return max(self.rates) if self.rates else None

    @property
    def nominal(self):
        return nominal_chunk(self.params["chunk"])


def load(path):
    """Reads the JSON (gzip-compressed when the name ends in .gz)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    records = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate":
            continue
        name = b.get("run_name", b["name"])
        rec = records.setdefault(name, Record(name))
        if b.get("error_occurred"):
            rec.error = b.get("error_message", "error")
            continue
        if "bytes_per_second" in b:
            rec.rates.append(float(b["bytes_per_second"]))
        for key in ("bytes_read", "plugin_bytes_identical", "helpers"):
            if key in b:
                rec.counters[key] = b[key]
    return data.get("context", {}), list(records.values())


def find(records, kind, **params):
    """Records of `kind` whose parameters include all of `params` (chunk matches nominally)."""
    out = []
    for r in records:
        if r.kind != kind:
            continue
        ok = True
        for key, value in params.items():
            if key == "nominal":
                ok = ok and r.nominal == value
            elif r.get(key) != value:
                ok = ok and False
        if ok:
            out.append(r)
    return out


def one(records, kind, **params):
    found = [r for r in find(records, kind, **params) if r.rates]
    return found[0] if found else None


def gbps(rate):
    return rate / 1e9 if rate is not None else None
