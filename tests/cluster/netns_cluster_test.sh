#!/usr/bin/env bash
# bench/netns_cluster.sh end to end (needs root and network namespaces: it fails, never skips,
# without them): 3 OSD hosts at 40 Mbit/s; every daemon runs in its own namespace, each link has a
# tbf qdisc on both ends, the OSDs are up on CRUSH hosts h1..h3, an object put from the client
# namespace takes at least as long as its bytes need at that rate and reads back equal from the
# root namespace; a killed OSD comes back with `start`, a stop-start resumes on the same subnet;
# --osd-opt lands in the config the OSDs start with; bad arguments are refused; stop leaves no namespace, link or process. Whatever it started is
# stopped even when a check fails.
# Usage: netns_cluster_test.sh BIN_DIR
set -euo pipefail
bin="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$(mktemp -d /tmp/ecstore-netns.XXXXXX)"
nc() { "$root/bench/netns_cluster.sh" "$@"; }
cleanup() { nc stop --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
admin() { "$bin/ec-admin" -c "$dir/ecstore.conf" "$@"; }
field() { admin -s --format json | grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }
tag="$(printf '%s' "$dir" | sha1sum | cut -c1-6)"

[ "$(id -u)" = 0 ] || fail "must run as root (network namespaces)"
nc start --dir "$dir" --hosts 3 --rate 40mbit --device-size 128M --grace 2 --bin "$bin" \
  --osd-opt osd_recovery_max_active=7 > "$dir/start.txt" || fail "start: $(cat "$dir/start.txt")"
grep -qx 'osd_recovery_max_active = 7' "$dir/ecstore.conf" || fail "--osd-opt not in the config"
grep -q '3 OSDs up on 3 hosts' "$dir/start.txt" || fail "start: $(cat "$dir/start.txt")"
[ "$(field num_up_osds)" = 3 ] || fail "num_up_osds $(field num_up_osds)"
admin osd tree > "$dir/tree.txt"
for h in h1 h2 h3; do grep -q "host $h" "$dir/tree.txt" || fail "no host $h in the osd tree"; done
[ "$(ip netns identify "$(cat "$dir/etcd.pid")")" = "ecn-$tag-etcd" ] || fail "etcd not in its namespace"
for id in 0 1 2; do
  [ "$(ip netns identify "$(cat "$dir/osd.$id.pid")")" = "ecn-$tag-h$((id + 1))" ] ||
    fail "osd.$id not in ecn-$tag-h$((id + 1))"
  # Whole outputs first: grep -q stopping early would SIGPIPE tc, which pipefail reports.
  bridge_side="$(tc qdisc show dev "ecn$tag-h$((id + 1))")"
  host_side="$(nc exec --dir "$dir" "h$((id + 1))" tc qdisc show dev eth0)"
  grep -q 'tbf .*rate 40Mbit' <<< "$bridge_side" || fail "no tbf on the bridge side of h$((id + 1))"
  grep -q 'tbf .*rate 40Mbit' <<< "$host_side" || fail "no tbf on the host side of h$((id + 1))"
  # --dscp-bands on (the default): the tbf's queue is pfifo_fast's priority bands.
  grep -q 'pfifo_fast 20: parent 1:1' <<< "$bridge_side" ||
    fail "no pfifo_fast bands under the bridge side's tbf of h$((id + 1)): $bridge_side"
  grep -q 'pfifo_fast 20: parent 1:1' <<< "$host_side" ||
    fail "no pfifo_fast bands under the host side's tbf of h$((id + 1)): $host_side"
done

# 4 MiB through a k=2 m=1 pool: the client's link alone needs 4 MiB / 40 Mbit/s = 0.84 s, and the
# primary's link another 2 MiB out (more unless it holds a data shard): well over 1 s.
admin osd erasure-code-profile set p21 plugin=jerasure k=2 m=1 crush-failure-domain=host
admin osd pool create p 8 8 erasure p21 > /dev/null 2>&1
head -c 4194304 /dev/urandom > "$dir/obj"
t0="$(date +%s%N)"
nc exec --dir "$dir" client "$bin/ec-rados" -c "$dir/ecstore.conf" -p p put o "$dir/obj"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -ge 1200 ] || fail "a 4 MiB put at 40 Mbit/s took $ms ms: the links are not limited"
"$bin/ec-rados" -c "$dir/ecstore.conf" -p p get o "$dir/obj.back"
cmp -s "$dir/obj" "$dir/obj.back" || fail "object read back differs"
nc status --dir "$dir" > "$dir/status.txt"
sent="$(sed -n 's/^  etcd: [0-9]* \/ \([0-9]*\)$/\1/p' "$dir/status.txt")"
[ "${sent:-0}" -ge 4194304 ] || fail "client link carried ${sent:-?} bytes out, < 4 MiB"

kill -KILL "$(cat "$dir/osd.1.pid")"
for _ in $(seq 1 100); do [ "$(field num_up_osds)" = 2 ] && break; sleep 0.1; done
[ "$(field num_up_osds)" = 2 ] || fail "osd.1 not down 10 s after kill -9"
nc start --dir "$dir" --bin "$bin" > /dev/null
[ "$(field num_up_osds)" = 3 ] || fail "osd.1 not back up after start"

net="$(sed -n 's/^net=//p' "$dir/netns.env")"
nc stop --dir "$dir" > /dev/null
nc start --dir "$dir" --bin "$bin" > /dev/null || fail "resume after stop"
[ "$(sed -n 's/^net=//p' "$dir/netns.env")" = "$net" ] || fail "resume changed the subnet"
"$bin/ec-rados" -c "$dir/ecstore.conf" -p p get o "$dir/obj.back2"
cmp -s "$dir/obj" "$dir/obj.back2" || fail "object differs after resume"

pids="$(cat "$dir"/*.pid)"
nc stop --dir "$dir" > /dev/null
for p in $pids; do ! kill -0 "$p" 2>/dev/null || fail "pid $p still runs after stop"; done
! ip netns list | grep -q "ecn-$tag-" || fail "namespaces left: $(ip netns list)"
! ip -o link show | grep -q "ecn$tag-" || fail "links left"

# Bad arguments: a message and exit 1, nothing made.
bad="$dir/fresh"
for args in "start" "start --dir $bad" "start --dir $bad --hosts 0" \
            "start --dir $bad --hosts 2 --rate fast" "start --dir $bad --hosts 2 --delay 1" \
            "start --dir $bad --hosts 2 --osd-opt nokey" "start --dir $bad --hosts 2 --osd-opt =1" \
            "exec --dir $dir h1 true" "exec --dir $dir" "frobnicate --dir $dir"; do
  if nc $args > "$dir/out.txt" 2>&1; then fail "'$args' succeeded"; fi
  grep -q 'netns_cluster.sh' "$dir/out.txt" || fail "'$args' printed no message: $(cat "$dir/out.txt")"
done
badtag="$(printf '%s' "$bad" | sha1sum | cut -c1-6)"
! ip netns list | grep -q "ecn-$badtag-" || fail "a refused start left namespaces: $(ip netns list)"
echo "netns cluster test passed"
