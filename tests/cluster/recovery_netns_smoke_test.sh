#!/usr/bin/env bash
# bench/recovery_netns.sh --smoke end to end (root and network namespaces needed: it fails, never
# skips, without them): one CLAY(4,2,5) pool of 16 MiB on 7 namespace hosts at 1 Gbit/s, one OSD
# killed and marked out, every PG active+clean again. Checks the results the bench writes: objects
# were recovered and none failed, network bytes per rebuilt byte at most CLAY's minimum d/q = 2.5
# (+1%: exactly it for the 4 MiB objects; the client's 4 KiB objects are stored without padding
# (Fast EC), so their helpers send only what they store, less per rebuilt byte), the times are positive and ordered, the client's reads were measured both before and
# during recovery, the JSON and the table exist, and nothing is left behind (no namespace, link or
# work directory of the run). --no-plots: gnuplot is bench/setup.sh's, not a build dependency.
# Usage: recovery_netns_smoke_test.sh BIN_DIR
set -euo pipefail
bin_dir="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(mktemp -d /tmp/ecstore-recovery-smoke.XXXXXX)"
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "must run as root (network namespaces)"
"$root/bench/recovery_netns.sh" --smoke --no-plots --build "$(dirname "$bin_dir")" --out "$out" \
  > "$out/run.txt" 2>&1 || { cat "$out/run.txt" >&2; fail "recovery_netns.sh --smoke failed"; }
for f in recovery.json recovery.md; do
  [ -s "$out/$f" ] || fail "no $f"
done
python3 - "$out/recovery.json" <<'PY' || { cat "$out/run.txt" >&2; fail "results"; }
import json, sys
res = json.load(open(sys.argv[1]))
assert len(res["runs"]) == 1, res["runs"]
r = res["runs"][0]
assert r["code"] == "clay42" and r["stripe_unit"] == 32768, r
assert r["objects_recovered"] > 0 and r["objects_failed"] == 0, r
assert r["rebuilt_bytes"] > 0, r
assert 1.0 < r["network_per_rebuilt"] <= 2.5 * 1.01, r["network_per_rebuilt"]
assert 0 < r["transfer_time_s"] <= r["time_to_clean_s"] + 1e-6, r
assert r["wire_into_hosts_bytes"] >= r["network_bytes"], r
assert 0 < r["busiest_link_utilisation"] <= 1.2, r["busiest_link_utilisation"]
c = r["client"]
assert c["baseline_ops"] > 0 and c["recovery_ops"] > 0 and c["p99_ratio"] > 0, c
print(f"smoke: {r['rebuilt_bytes']} bytes rebuilt in {r['transfer_time_s']:.2f} s, "
      f"{r['network_per_rebuilt']:.3f} network bytes per rebuilt byte")
PY
work="$(sed -n 's/.* work \(\/tmp\/ec-recovery-netns\.[A-Za-z0-9]*\)$/\1/p' "$out/run.txt")"
[ -n "$work" ] || fail "no work directory named in the output"
[ ! -e "$work" ] || fail "work directory $work left behind"
tag="$(printf '%s' "$work/c_clay42_32768" | sha1sum | cut -c1-6)"
! ip netns list | grep -q "^ecn-$tag-" || fail "namespaces ecn-$tag-* left behind"
! ip -o link show | grep -q "ecn$tag-" || fail "links ecn$tag-* left behind"
echo "PASS"
