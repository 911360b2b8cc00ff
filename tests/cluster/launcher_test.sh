#!/usr/bin/env bash
# scripts/cluster.sh end to end: start a cluster of 3 OSDs on 2 hosts, check ec-admin sees them
# up and in on the right hosts, kill -9 one and see it down, `start` again brings it back, `stop`
# leaves no process behind, and bad arguments are refused. Whatever it started is stopped even
# when a check fails.
# Usage: launcher_test.sh BIN_DIR
set -euo pipefail
bin="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$(mktemp -d /tmp/ecstore-launcher.XXXXXX)"
launcher() { "$root/scripts/cluster.sh" "$@"; }
cleanup() { launcher stop --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
admin() { "$bin/ec-admin" -c "$dir/ecstore.conf" "$@"; }
field() { admin -s --format json | grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }

launcher start --dir "$dir" --osds 3 --hosts 2 --grace 2 --bin "$bin" > "$dir/start.txt"
grep -q '3 OSDs up on 2 hosts' "$dir/start.txt" || fail "start: $(cat "$dir/start.txt")"
[ "$(field num_osds)" = 3 ] || fail "num_osds $(field num_osds)"
[ "$(field num_up_osds)" = 3 ] || fail "num_up_osds $(field num_up_osds)"
[ "$(field num_in_osds)" = 3 ] || fail "num_in_osds $(field num_in_osds)"
admin osd tree > "$dir/tree.txt"
grep -q 'host host1' "$dir/tree.txt" || fail "no host1 in osd tree"
EC_CONF="$dir/ecstore.conf" "$bin/ec-admin" -s > /dev/null || fail "EC_CONF not read"

kill -KILL "$(cat "$dir/osd.1.pid")"
for _ in $(seq 1 100); do [ "$(field num_up_osds)" = 2 ] && break; sleep 0.1; done
[ "$(field num_up_osds)" = 2 ] || fail "osd.1 not down 10 s after kill -9"
admin health detail > "$dir/health.txt"
grep -q 'osd.1 (root=default,host=host1) is down' "$dir/health.txt" || fail "health detail"

launcher start --dir "$dir" --bin "$bin" > /dev/null   # starts what is not running
[ "$(field num_up_osds)" = 3 ] || fail "osd.1 not back up after start"
launcher status --dir "$dir" --bin "$bin" > "$dir/status.txt"
grep -q 'osd.1: running' "$dir/status.txt" || fail "status: $(cat "$dir/status.txt")"

pids="$(cat "$dir"/*.pid)"
launcher stop --dir "$dir" > /dev/null
for p in $pids; do ! kill -0 "$p" 2>/dev/null || fail "pid $p still runs after stop"; done

# Bad arguments: a message and exit 1.
for args in "start" "start --dir $dir --osds 0" "start --dir $dir --osds 2 --hosts 3" "frobnicate --dir $dir"; do
  if launcher $args > "$dir/out.txt" 2>&1; then fail "'$args' succeeded"; fi
  grep -q 'cluster.sh' "$dir/out.txt" || fail "'$args' printed no message: $(cat "$dir/out.txt")"
done
echo "launcher test passed"
