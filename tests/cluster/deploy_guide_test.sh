#!/usr/bin/env bash
# docs/deploy.md followed on hosts that are network namespaces, with the files an install ships
# (needs root, network and mount namespaces: it fails, never skips, without them; ~25 s here).
#
# The build is installed into a temporary prefix (`cmake --install`, components runtime, systemd
# and deploy). Each host nodeN is a network namespace (bench/netns_hosts.sh, the netns cluster's
# own functions) at 10.213.X.(10+N), and every command on it runs in a private mount namespace
# where the host's own directories are bind-mounted on /etc/ecstore, /var/lib/ecstore and
# /var/lib/etcd: so each host has its own config dir, rendered by the installed
# share/ecstore/deploy/render.sh from the installed templates (only names and addresses filled
# in), and the programs find it where the guide puts it. systemd does not run here (`systemctl
# is-system-running`: offline), so a unit is started as systemd would start it: the command of
# the installed unit's ExecStart= (%i the instance), with etcd-ecstore.service's
# EnvironmentFile= loaded, in the host's namespaces, as root (the unit's User=etcd is not
# applied); stopping it is SIGTERM, as systemctl stop.
#
# The guide's steps, in order: three etcd members (one per host) and two OSDs per host
# (osd.0-5, `ec-osd --mkfs`, then the unit), a pool, objects written and read back; one host's
# OSDs restarted under noout; a fourth host added (osd.6, osd.7), then an etcd member moved to it
# (etcdctl member add, the member started with --etcd-state existing); node3 removed (osd out,
# wait for every PG active+clean, ok-to-stop, stop, osd rm, etcdctl member remove, its
# namespace deleted); every host's config rendered again without node3 and each host's OSDs
# restarted under noout to take it. At the end: every object reads back equal from the new host,
# every PG is active+clean, HEALTH_OK, the map holds exactly the OSDs of node1, node2 and node4.
# The commands the guide shows verbatim (ec-admin's, etcdctl's, the wait for active+clean) are
# checked to be in docs/deploy.md, so the guide and the test change together. Everything started
# is stopped, and the namespaces deleted, by a trap even on failure.
# Usage: deploy_guide_test.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
guide="$root/docs/deploy.md"
# The test's stderr, also for a failure inside a command whose stderr is redirected.
exec 3>&2
fail() { echo "FAIL: $*" >&3; exit 1; }
die() { fail "$@"; }  # bench/netns_hosts.sh's
start=$SECONDS
step() { echo "== $* ($((SECONDS - start)) s)"; }

[ "$(id -u)" = 0 ] || fail "must run as root (network and mount namespaces)"
for c in ip tc unshare mount etcdctl; do command -v "$c" > /dev/null || fail "no $c"; done
[ -x /usr/bin/etcd ] || fail "no /usr/bin/etcd (package etcd-server)"
[ -f "$guide" ] || fail "no $guide"

dir="$(mktemp -d /tmp/ecstore-deploy.XXXXXX)"
prefix="$dir/prefix"
units="$prefix/lib/systemd/system"
tag="$(printf '%s' "$dir" | sha1sum | cut -c1-6)"
ns_prefix="ecn-$tag-" link_prefix="ecn$tag-" bridge="ecn$tag-br"
rate=1gbit delay=0ms burst="" dscp_bands=off net=""
# shellcheck source=bench/netns_hosts.sh
. "$root/bench/netns_hosts.sh"
mkdir -p "$dir/pid" "$dir/log"

# Mount points the hosts' directories are bound on. The test makes those that do not exist (and
# removes them after); one that exists, a real install's, is only covered inside the namespaces.
mountpoints=(/etc/ecstore /var/lib/ecstore /var/lib/etcd)
made=()
for m in "${mountpoints[@]}"; do
  if [ ! -d "$m" ]; then mkdir -p "$m"; made+=("$m"); fi
done

cleanup() {
  local rc=$? f pid
  for f in "$dir"/pid/*.pid; do
    [ -e "$f" ] || continue
    pid="$(cat "$f")"
    kill -TERM "$pid" 2> /dev/null || true
  done
  for f in "$dir"/pid/*.pid; do
    [ -e "$f" ] || continue
    pid="$(cat "$f")"
    for _ in $(seq 1 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2> /dev/null || true
  done
  delete_network || rc=1
  for m in ${made[@]+"${made[@]}"}; do rmdir "$m" 2> /dev/null || true; done
  if [ "$rc" -ne 0 ]; then
    for f in "$dir"/log/*; do
      [ -e "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }
    done >&3
  fi
  rm -rf "$dir"
  exit "$rc"
}
trap cleanup EXIT

# CMD on host NODE: in its network namespace and a mount namespace of its own where its
# directories are /etc/ecstore, /var/lib/ecstore and /var/lib/etcd, with the prefix's programs
# first on PATH (an installed host's /usr/local/bin). host_argv sets host_argv_ to the words that
# run a command so; every one of them execs the next, so a daemon started with
# `"${host_argv_[@]}" CMD &` has $! as its pid (a function run with & would be a subshell's).
host_argv() {  # node
  # shellcheck disable=SC2016  # $1 and $@ are the inner shell's
  host_argv_=(ip netns exec "$ns_prefix$1" unshare --mount --propagation private /bin/sh -c '
    h="$1"; shift
    mount --bind "$h/etc/ecstore" /etc/ecstore &&
      mount --bind "$h/var/lib/ecstore" /var/lib/ecstore &&
      mount --bind "$h/var/lib/etcd" /var/lib/etcd && exec "$@"' \
    sh "$dir/$1" env PATH="$prefix/bin:$PATH")
}
on_host() {  # node cmd...
  host_argv "$1"; shift
  "${host_argv_[@]}" "$@"
}
admin() { on_host node1 ec-admin "$@"; }
# A command the guide shows as it is: it must be in docs/deploy.md word for word.
guide_has() {
  grep -qF -- "$1" "$guide" || fail "docs/deploy.md no longer shows: $1"
}
guide() {  # node cmd... (run on node, checked to be in the guide)
  local node="$1"; shift
  guide_has "$*"
  on_host "$node" "$@"
}

# The unit's ExecStart= as words (systemd's own splitting for a line without quotes), %i -> ID.
exec_start() {  # unit-file [instance]
  local line
  line="$(sed -n 's/^ExecStart=//p' "$units/$1")"
  [ -n "$line" ] || fail "$1: no ExecStart="
  [[ "$line" != *[\"\'\$\\]* ]] || fail "$1: ExecStart= quotes or expands: $line"
  line="${line//%i/${2:-}}"
  [[ "$line" != *%* ]] || fail "$1: ExecStart= has a specifier this test does not expand: $line"
  echo "$line"
}
# The unit's EnvironmentFile= as NAME=value words, read from the host's file at that path.
environment() {  # unit-file node
  local path env=() l
  path="$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$units/$1")"
  [[ "$path" == /etc/ecstore/* ]] || fail "$1: EnvironmentFile=$path is not in /etc/ecstore"
  while IFS= read -r l; do
    [[ -z "$l" || "$l" == \#* ]] && continue
    [[ "$l" =~ ^[A-Z_][A-Z0-9_]*=[^[:space:]\"\']*$ ]] || fail "$path on $2: line '$l'"
    env+=("$l")
  done < "$dir/$2$path"
  echo "${env[@]}"
}

# systemctl start UNIT on NODE: etcd-ecstore or ec-osd@ID. The daemon's output is its journal.
unit_start() {  # node unit
  local node="$1" unit="$2" cmd envs=() name
  case "$unit" in
    etcd-ecstore)
      # StateDirectory=etcd/ecstore, StateDirectoryMode=0700
      install -d -m 0700 "$dir/$node/var/lib/etcd/ecstore"
      read -r -a envs <<< "$(environment etcd-ecstore.service "$node")"
      cmd="$(exec_start etcd-ecstore.service)" name="$node.etcd" ;;
    ec-osd@*)
      cmd="$(exec_start ec-osd@.service "${unit#ec-osd@}")" name="osd.${unit#ec-osd@}" ;;
    *) fail "unit_start: $unit" ;;
  esac
  host_argv "$node"
  # shellcheck disable=SC2086  # the ExecStart words
  "${host_argv_[@]}" setsid env ${envs[@]+"${envs[@]}"} $cmd >> "$dir/log/$name.log" 2>&1 < /dev/null &
  echo $! > "$dir/pid/$name.pid"
}
# systemctl stop: SIGTERM, and wait (SIGKILL after 30 s, TimeoutStopSec's job).
unit_stop() {  # name (osd.N or nodeN.etcd)
  local f="$dir/pid/$1.pid" pid
  pid="$(cat "$f")"
  kill -TERM "$pid" 2> /dev/null || true
  for _ in $(seq 1 300); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2> /dev/null || true
  rm -f "$f"
}

ready_count() {
  if [ -f "$dir/log/osd.$1.log" ]; then grep -c '"event":"ready"' "$dir/log/osd.$1.log" || true
  else echo 0; fi
}
# Starts the OSDs' units and waits for each to print its ready line (booted into the map).
start_osds() {  # node id...
  local node="$1" id before=() deadline=$((SECONDS + 60)); shift
  for id in "$@"; do before[id]="$(ready_count "$id")"; unit_start "$node" "ec-osd@$id"; done
  for id in "$@"; do
    until [ "$(ready_count "$id")" -gt "${before[id]}" ]; do
      kill -0 "$(cat "$dir/pid/osd.$id.pid")" 2> /dev/null || fail "osd.$id exited"
      [ "$SECONDS" -lt "$deadline" ] || fail "osd.$id not ready in 60 s"
      sleep 0.1
    done
  done
}
num_up() { admin -s --format json | grep -o '"num_up_osds":[0-9]*' | head -n 1 | cut -d: -f2; }
wait_up() {  # count
  for _ in $(seq 1 100); do [ "$(num_up)" = "$1" ] && return; sleep 0.2; done
  fail "$(num_up) OSDs up, not $1"
}
# The guide's wait: every PG active+clean as the PG primaries report it.
clean_check="ec-admin pg stat | grep -Eq '^([0-9]+) pgs: \1 active\+clean;'"
wait_clean() {  # seconds
  guide_has "until $clean_check; do sleep 5; done"
  local deadline=$((SECONDS + $1))
  until on_host node1 sh -c "$clean_check"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "PGs not active+clean after $1 s: $(admin pg stat)"
    sleep 0.5
  done
}
render() {  # node etcd-list [--etcd-state existing]
  local node="$1" list="$2"; shift 2
  "$prefix/share/ecstore/deploy/render.sh" --host "$node" --addr "$(host_ip "${node#node}")" \
    --etcd "$list" --out "$dir/$node/etc/ecstore" "$@" > /dev/null
}
make_host_dirs() {  # node
  mkdir -p "$dir/$1/etc/ecstore" "$dir/$1/var/lib/ecstore" "$dir/$1/var/lib/etcd"
}
etcd_list() {  # node... -> NAME=ADDR,...
  local n out=""
  for n in "$@"; do out+="${out:+,}$n=$(host_ip "${n#node}")"; done
  echo "$out"
}

step "cmake --install (runtime, systemd, deploy) into $prefix"
for c in runtime systemd deploy; do
  cmake --install "$build" --prefix "$prefix" --component "$c" > "$dir/log/install.txt" 2>&1 ||
    fail "cmake --install --component $c: $(cat "$dir/log/install.txt")"
done

step "hosts node1..node3 (network namespaces ${ns_prefix}nodeN)"
make_network "node1 n1 11" "node2 n2 12" "node3 n3 13"
for n in node1 node2 node3; do make_host_dirs "$n"; done
members="$(etcd_list node1 node2 node3)"
for n in node1 node2 node3; do render "$n" "$members"; done

step "etcd: one member per host (etcd-ecstore.service), started together"
for n in node1 node2 node3; do unit_start "$n" etcd-ecstore; done
for _ in $(seq 1 100); do
  on_host node1 etcdctl endpoint health --cluster > /dev/null 2>&1 && break
  sleep 0.2
done
guide node1 etcdctl endpoint health --cluster > "$dir/log/health.txt" 2>&1 ||
  fail "etcd not healthy: $(cat "$dir/log/health.txt")"
[ "$(grep -c 'is healthy' "$dir/log/health.txt")" = 3 ] || fail "$(cat "$dir/log/health.txt")"

step "OSDs: ec-osd --mkfs, then ec-osd@N (osd.0,1 on node1, 2,3 on node2, 4,5 on node3)"
for id in 0 1 2 3 4 5; do
  n="node$((id / 2 + 1))"
  on_host "$n" ec-osd -c /etc/ecstore/ecstore.conf -i "$id" --mkfs \
    --set bluestore_block_size=128M > /dev/null 2>> "$dir/log/mkfs.log" || fail "mkfs of osd.$id"
done
guide_has "ec-osd -c /etc/ecstore/ecstore.conf -i 0 --mkfs --set bluestore_block_size="
guide_has "systemctl enable --now ec-osd@0 ec-osd@1"
start_osds node1 0 1
start_osds node2 2 3
start_osds node3 4 5
wait_up 6
admin osd tree > "$dir/log/tree.txt"
for n in node1 node2 node3; do grep -q "host $n" "$dir/log/tree.txt" || fail "no host $n in the tree"; done

step "a pool, objects written from node1"
guide node1 ec-admin osd erasure-code-profile set rs21 plugin=isa k=2 m=1 crush-failure-domain=host
guide node1 ec-admin osd pool create data 16 16 erasure rs21 > /dev/null
mkdir -p "$dir/obj" "$dir/back"
objects=24
for i in $(seq 1 "$objects"); do
  head -c $((RANDOM * 8 + i)) /dev/urandom > "$dir/obj/o$i"
  on_host node1 ec-rados -p data put "o$i" "$dir/obj/o$i"
done
wait_clean 30
guide node1 ec-admin -s > "$dir/log/status.txt"
grep -q HEALTH_OK "$dir/log/status.txt" || fail "$(cat "$dir/log/status.txt")"
guide_has "ec-admin health detail"

step "node2's OSDs restarted under noout"
guide node1 ec-admin osd set noout 2> /dev/null
guide node1 ec-admin osd ok-to-stop 2 3 > /dev/null
unit_stop osd.2
unit_stop osd.3
wait_up 4
start_osds node2 2 3
wait_up 6
wait_clean 30
guide node1 ec-admin osd unset noout 2> /dev/null

step "node4 added: its config rendered, osd.6 and osd.7 made and started"
add_host node4 n4 "$(host_ip 4)"
make_host_dirs node4
render node4 "$members"
[ ! -e "$dir/node4/etc/ecstore/etcd.env" ] || fail "node4 got an etcd.env while not a member"
for id in 6 7; do
  on_host node4 ec-osd -c /etc/ecstore/ecstore.conf -i "$id" --mkfs \
    --set bluestore_block_size=128M > /dev/null 2>> "$dir/log/mkfs.log" || fail "mkfs of osd.$id"
done
start_osds node4 6 7
wait_up 8
wait_clean 40
admin osd tree | grep -q "host node4" || fail "no host node4 in the tree"

step "an etcd member added on node4 (etcdctl member add, --etcd-state existing)"
guide_has "etcdctl member add node4 --peer-urls=http://192.0.2.14:2380"
on_host node1 etcdctl member add node4 --peer-urls="http://$(host_ip 4):2380" > /dev/null
render node4 "$(etcd_list node1 node2 node3 node4)" --etcd-state existing
guide_has "--etcd-state existing"
unit_start node4 etcd-ecstore
for _ in $(seq 1 100); do
  [ "$(on_host node1 etcdctl endpoint health --cluster 2>&1 | grep -c 'is healthy')" = 4 ] && break
  sleep 0.2
done
[ "$(on_host node1 etcdctl endpoint health --cluster 2>&1 | grep -c 'is healthy')" = 4 ] ||
  fail "node4's etcd member not healthy: $(on_host node1 etcdctl endpoint health --cluster 2>&1)"

step "node3 removed: osd out, backfill, ok-to-stop, stop, osd rm"
guide node1 ec-admin osd out 4 5 2> /dev/null
wait_clean 60
admin pg dump pgs_brief | grep -Eq '\[([0-9]+,)*[45](,[0-9]+)*\]' &&
  fail "a PG still maps to osd.4 or osd.5: $(admin pg dump pgs_brief)"
guide node1 ec-admin osd ok-to-stop 4 5 > /dev/null
unit_stop osd.4
unit_stop osd.5
wait_up 6
guide node1 ec-admin osd rm 4 5 2> /dev/null
# Removed from the map, they draw no more: some PGs' positions are drawn again (backfill again).
wait_clean 60

step "node3's etcd member removed (etcdctl member remove), node3 deleted"
guide_has "etcdctl member list"
id3="$(on_host node1 etcdctl member list | awk -F', ' '$3 == "node3" { print $1 }')"
[ -n "$id3" ] || fail "node3 not in etcdctl member list"
guide_has "etcdctl member remove"
on_host node1 etcdctl member remove "$id3" > /dev/null
unit_stop node3.etcd
delete_host node3
members="$(etcd_list node1 node2 node4)"
for n in node1 node2 node4; do render "$n" "$members"; done
grep -qxF "etcd_endpoints = http://$(host_ip 1):2379,http://$(host_ip 2):2379,http://$(host_ip 4):2379" \
  "$dir/node1/etc/ecstore/ecstore.conf" || fail "node1's etcd_endpoints: $(grep etcd_endpoints "$dir/node1/etc/ecstore/ecstore.conf")"

step "each host's OSDs restarted under noout, one host at a time, to take the new endpoints"
admin osd set noout 2> /dev/null
for hostids in "node1 0 1" "node2 2 3" "node4 6 7"; do
  read -r n a b <<< "$hostids"
  admin osd ok-to-stop "$a" "$b" > /dev/null || fail "ok-to-stop $a $b"
  unit_stop "osd.$a"
  unit_stop "osd.$b"
  start_osds "$n" "$a" "$b"
  wait_up 6
  wait_clean 30
done
admin osd unset noout 2> /dev/null

step "every object read back from node4; the map and etcd as the guide leaves them"
for i in $(seq 1 "$objects"); do
  on_host node4 ec-rados -p data get "o$i" "$dir/back/o$i"
  cmp -s "$dir/obj/o$i" "$dir/back/o$i" || fail "object o$i read back differs"
done
[ "$(on_host node4 ec-rados -p data ls | wc -l)" = "$objects" ] || fail "ec-rados ls: not $objects objects"
wait_clean 30
on_host node4 ec-admin -s > "$dir/log/status.txt"
grep -q HEALTH_OK "$dir/log/status.txt" || fail "not HEALTH_OK: $(cat "$dir/log/status.txt")"
admin osd tree > "$dir/log/tree.txt"
grep -q "host node3" "$dir/log/tree.txt" && fail "node3 still in the tree: $(cat "$dir/log/tree.txt")"
[ "$(grep -Eo 'osd\.[0-9]+' "$dir/log/tree.txt" | sort | tr '\n' ' ')" = "osd.0 osd.1 osd.2 osd.3 osd.6 osd.7 " ] ||
  fail "the tree's OSDs: $(cat "$dir/log/tree.txt")"
[ "$(on_host node1 etcdctl member list | awk -F', ' '{ print $3 }' | sort | tr '\n' ' ')" = "node1 node2 node4 " ] ||
  fail "etcd members: $(on_host node1 etcdctl member list)"
step "deploy guide test passed: $objects objects read back equal, 16 PGs active+clean"
