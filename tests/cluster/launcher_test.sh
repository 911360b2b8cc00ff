#!/usr/bin/env bash
# scripts/cluster.sh end to end: start a cluster of 3 OSDs on 2 hosts, check ec-admin sees them
# up and in on the right hosts, with auth cephx (keyrings made, -s says so) and etcd over TLS with
# client certificates (a client without a certificate, on plain http or without the CA refused), kill -9 one and see it down, `start` again brings it back, status
# names every OSD's ports and the cluster metrics' address (each answers over HTTP, the cluster
# page with ceph_osd_up for every OSD), `stop` leaves no process behind, and bad arguments are
# refused. Then a second cluster (4 OSDs on 4
# hosts, an --osd-opt, --auth none and --etcd-tls off: -s says so, --auth cephx later refused),
# started under a flock and a held descriptor: the lock is free once start
# returns and no daemon holds any of the caller's descriptors; etcd's ports lie below the
# kernel's ephemeral range; an object written before a stop reads back after a start without
# options, which brings back the same 4 OSDs and leaves ecstore.conf as it was; `start --osds 3`
# on it is refused with both counts named, running or stopped, and changes nothing. Then a third
# cluster on three etcd members (--etcd 3, over TLS): status names each member and the one leader, the
# config every client URL; the leader killed (kill -9), the cluster map is still read and written
# through the others and an object reads back; `start` restarts the member; --etcd 1 is refused;
# after a stop, a member's client port taken by another program moves (etcd_endpoints follows),
# its peer port taken is refused before anything starts. The first and third clusters run with
# etcd's users and roles (the default with TLS): the programs work as their users, a client's
# password cannot write the map, ecstore's auth database or etcd's users, a wrong password and a
# password file others may read are refused saying so. A fourth, over TLS without roles and with
# an older client certificate (a CN), restarts as it was and refuses --etcd-roles on. Whatever it
# started is stopped even when a check fails.
# Usage: launcher_test.sh BIN_DIR
set -euo pipefail
bin="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$(mktemp -d /tmp/ecstore-launcher.XXXXXX)"
dir2="$(mktemp -d /tmp/ecstore-launcher.XXXXXX)"
dir3="$(mktemp -d /tmp/ecstore-launcher.XXXXXX)"
dir4="$(mktemp -d /tmp/ecstore-launcher.XXXXXX)"
holder=""  # a listener this test starts on a port, to take it from etcd
launcher() { "$root/scripts/cluster.sh" "$@"; }
cleanup() {
  if [ -n "$holder" ]; then kill "$holder" 2>/dev/null || true; fi
  launcher stop --dir "$dir" >/dev/null 2>&1 || true
  launcher stop --dir "$dir2" >/dev/null 2>&1 || true
  launcher stop --dir "$dir3" >/dev/null 2>&1 || true
  launcher stop --dir "$dir4" >/dev/null 2>&1 || true
  rm -rf "$dir" "$dir2" "$dir3" "$dir4"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Whether PID still runs: a zombie waiting to be reaped (by PID 1 here, slowly) has stopped.
running() { [ -r "/proc/$1/stat" ] && ! sed -E 's/^[0-9]+ \(.*\) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }
cur="$dir"   # the cluster admin and field talk to
admin() { "$bin/ec-admin" -c "$cur/ecstore.conf" "$@"; }
field() { admin -s --format json | grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }

launcher start --dir "$dir" --osds 3 --hosts 2 --grace 2 --bin "$bin" > "$dir/start.txt"
grep -q '3 OSDs up on 2 hosts' "$dir/start.txt" || fail "start: $(cat "$dir/start.txt")"
[ "$(field num_osds)" = 3 ] || fail "num_osds $(field num_osds)"
[ "$(field num_up_osds)" = 3 ] || fail "num_up_osds $(field num_up_osds)"
[ "$(field num_in_osds)" = 3 ] || fail "num_in_osds $(field num_in_osds)"
admin osd tree > "$dir/tree.txt"
grep -q 'host host1' "$dir/tree.txt" || fail "no host1 in osd tree"
EC_CONF="$dir/ecstore.conf" "$bin/ec-admin" -s > /dev/null || fail "EC_CONF not read"

# Authentication is on by default (issue 32 item 5): keys made at start, each keyring readable by
# its owner only, the OSDs and client.admin in the auth database, -s saying so.
grep -q '^auth: cephx (keyrings ' "$dir/start.txt" || fail "start does not say auth: cephx"
grep -qx 'auth_cluster_required = cephx' "$dir/ecstore.conf" || fail "ecstore.conf: no cephx"
for ring in client.admin osd.0 osd.1 osd.2; do
  [ "$(stat -c %a "$dir/$ring.keyring")" = 600 ] || fail "$ring.keyring is not mode 600"
done
grep -qx '\[mon\.\]' "$dir/osd.0.keyring" || fail "osd.0.keyring has no mon. key"
admin auth ls > "$dir/auth.txt" || fail "auth ls"
for e in client.admin osd.0 osd.1 osd.2; do grep -qx "$e" "$dir/auth.txt" || fail "auth ls: no $e"; done
for _ in $(seq 1 50); do admin -s | grep -qx '    auth: cephx' && break; sleep 0.1; done
admin -s | grep -qx '    auth: cephx' || fail "-s does not say auth: cephx: $(admin -s)"

# etcd over TLS with client certificates, on by default (issue 32 item 3): https endpoints and the
# files in ecstore.conf, which every program above used. A client without a certificate, one on
# plain http and one without the CA are refused, each saying why.
grep -q '^etcd: https://127.0.0.1:[0-9]* ' "$dir/start.txt" || fail "start: etcd not on https"
grep -q '^etcd_endpoints = https://127.0.0.1:' "$dir/ecstore.conf" || fail "conf: no https endpoint"
for f in "etcd_ca_file = $dir/tls/ca.crt" "etcd_cert_file = $dir/tls/ecstore.crt" \
         "etcd_key_file = $dir/tls/ecstore.key"; do
  grep -qxF "$f" "$dir/ecstore.conf" || fail "conf has no '$f'"
done
[ "$(stat -c %a "$dir/tls/ca.key")" = 600 ] || fail "the CA's key is not mode 600"
refused_conf() {  # NAME SED-SCRIPT WORDS...: ec-admin -s with the edited config fails, saying WORDS
  local name="$1" script="$2" word
  shift 2
  sed -e "$script" "$dir/ecstore.conf" > "$dir/$name.conf"
  if "$bin/ec-admin" -c "$dir/$name.conf" -s > "$dir/$name.txt" 2>&1; then
    fail "ec-admin -s with $name succeeded"
  fi
  for word in "$@"; do
    grep -qF -- "$word" "$dir/$name.txt" || fail "$name: no '$word' in: $(cat "$dir/$name.txt")"
  done
}
refused_conf nocert '/^etcd_cert_file/d; /^etcd_key_file/d' "TLS: etcd refused this client's certificate" \
  "etcd_cert_file"
refused_conf plain 's|https://|http://|g; /^etcd_ca_file/d; /^etcd_cert_file/d; /^etcd_key_file/d' \
  "it serves https and this endpoint says http://"
refused_conf noca '/^etcd_ca_file/d' "needs etcd_ca_file"

# etcd's users and roles, on with TLS by default (issue 32 item 3): three users made with their
# passwords in files only their owner reads, each section of ecstore.conf naming its own, and a
# client certificate without a CN (etcd's gateway refuses one with a CN once auth is on).
grep -q '^etcd roles: on (users root for ec-admin, osd, client;' "$dir/start.txt" ||
  fail "start does not say etcd roles: on: $(cat "$dir/start.txt")"
for u in root osd client; do
  [ "$(stat -c %a "$dir/etcd.$u.password")" = 600 ] || fail "etcd.$u.password is not mode 600"
done
section_has() {  # SECTION USER: [SECTION] of ecstore.conf names etcd user USER and its file
  awk -v s="[$1]" '/^\[/ { on = ($0 == s) } on' "$dir/ecstore.conf" > "$dir/section.txt"
  if ! grep -qx "etcd_user = $2" "$dir/section.txt" ||
     ! grep -qx "etcd_password_file = $dir/etcd.$2.password" "$dir/section.txt"; then
    fail "[$1] does not name etcd user $2: $(cat "$dir/ecstore.conf")"
  fi
}
section_has osd osd
section_has client client
section_has client.admin root
if openssl x509 -in "$dir/tls/ecstore.crt" -noout -subject | grep -q 'CN *='; then
  fail "the client certificate has a CN: $(openssl x509 -in "$dir/tls/ecstore.crt" -noout -subject)"
fi
# A client other than client.admin acts as etcd user client: it reads the map (ec-rados put and
# get, lspools) and writes objects through the OSDs, which write the map.
admin osd erasure-code-profile set p21 plugin=jerasure k=2 m=1 crush-failure-domain=osd > /dev/null
admin osd pool create p 8 8 erasure p21 > /dev/null 2>&1 || fail "pool create as client.admin (root)"
(umask 077 && admin auth get-or-create client.app osd 'allow rw pool=p' > "$dir/client.app.keyring") ||
  fail "auth get-or-create client.app"
head -c 300000 /dev/urandom > "$dir/obj"
rados_app() { "$bin/ec-rados" -c "$dir/ecstore.conf" --id app "$@"; }
rados_app -p p put o "$dir/obj" || fail "ec-rados --id app put"
rados_app -p p get o "$dir/obj.back" || fail "ec-rados --id app get"
cmp -s "$dir/obj" "$dir/obj.back" || fail "object read back as client.app differs"
rados_app lspools | grep -qx p || fail "ec-rados --id app lspools"
# The client's password writes nothing: not the map (ec-admin with only [client] acts as etcd user
# client), not ecstore's auth database, not etcd's users, not a key through etcdctl.
sed '/^\[client\.admin\]/,$d' "$dir/ecstore.conf" > "$dir/client.conf"
as_client() {  # WHAT ec-admin-args...: refused by etcd for the client's roles, saying so
  local what="$1"
  shift
  if "$bin/ec-admin" -c "$dir/client.conf" "$@" > "$dir/client.txt" 2>&1; then
    fail "$what with the client's etcd password succeeded"
  fi
  grep -qF "etcdserver: permission denied (HTTP 403) (etcd user 'client': its roles do not allow this)" \
    "$dir/client.txt" || fail "$what as etcd user client: $(cat "$dir/client.txt")"
}
"$bin/ec-admin" -c "$dir/client.conf" osd pool ls | grep -qx p || fail "the client cannot read the map"
as_client "pool create" osd pool create q 8 8 erasure p21
as_client "osd out" osd out 0
as_client "auth get-or-create" auth get-or-create client.x osd 'allow *'
[ "$(admin osd pool ls)" = p ] || fail "pools after the client's refused writes: $(admin osd pool ls)"
ctl_client() {
  ETCDCTL_API=3 ETCDCTL_USER="client:$(cat "$dir/etcd.client.password")" etcdctl \
    --cacert "$dir/tls/ca.crt" --cert "$dir/tls/ecstore.crt" --key "$dir/tls/ecstore.key" \
    --endpoints "$(sed -n 's/^etcd_endpoints = //p' "$dir/ecstore.conf")" "$@" 2>&1
}
for cmd in "put /ecstore/epoch 999" "user add mallory --new-user-password=x" "auth disable"; do
  # shellcheck disable=SC2086  # each entry is a command line
  out="$(ctl_client $cmd || true)"
  grep -q '^Error: etcdserver: permission denied$' <<< "$out" || fail "etcdctl $cmd as client: $out"
done
# A wrong password, a password file others may read, and no user at all: each a clear error.
(umask 077 && echo wrong > "$dir/wrong.password")
sed "s|^etcd_password_file = $dir/etcd.root.password|etcd_password_file = $dir/wrong.password|" \
  "$dir/ecstore.conf" > "$dir/wrong.conf"
if "$bin/ec-admin" -c "$dir/wrong.conf" -s > "$dir/wrong.txt" 2>&1; then fail "a wrong password worked"; fi
grep -q "etcd user 'root' at 127.0.0.1:[0-9]*: etcdserver: authentication failed, invalid user ID or password (HTTP 400) (check etcd_user and etcd_password_file)" \
  "$dir/wrong.txt" || fail "wrong password: $(cat "$dir/wrong.txt")"
chmod 644 "$dir/wrong.password"
sed "s|^etcd_password_file = $dir/etcd.root.password|etcd_password_file = $dir/wrong.password|" \
  "$dir/ecstore.conf" > "$dir/wrong.conf"
if "$bin/ec-admin" -c "$dir/wrong.conf" -s > "$dir/wrong.txt" 2>&1; then fail "a 0644 password file worked"; fi
grep -qF "etcd_password_file $dir/wrong.password is mode 0644" "$dir/wrong.txt" ||
  fail "password file mode 0644: $(cat "$dir/wrong.txt")"
refused_conf nouser '/^etcd_user/d; /^etcd_password_file/d' \
  "names no etcd user: set etcd_user and etcd_password_file"

kill -KILL "$(cat "$dir/osd.1.pid")"
for _ in $(seq 1 100); do [ "$(field num_up_osds)" = 2 ] && break; sleep 0.1; done
[ "$(field num_up_osds)" = 2 ] || fail "osd.1 not down 10 s after kill -9"
admin health detail > "$dir/health.txt"
grep -q 'osd.1 (root=default,host=host1) is down' "$dir/health.txt" || fail "health detail"

launcher start --dir "$dir" --bin "$bin" > /dev/null   # starts what is not running
# The OSD has booted when start returns; the map's up mark may follow it by a moment (a loaded
# machine showed the old count once).
for _ in $(seq 1 100); do [ "$(field num_up_osds)" = 3 ] && break; sleep 0.1; done
[ "$(field num_up_osds)" = 3 ] || fail "osd.1 not back up 10 s after start"
launcher status --dir "$dir" --bin "$bin" > "$dir/status.txt"
grep -q 'osd.1: running' "$dir/status.txt" || fail "status: $(cat "$dir/status.txt")"

# The body of http://127.0.0.1:PORT/PATH (bash's /dev/tcp: no curl needed).
http_get() {  # port path
  local body
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\n\r\n' "$2" >&3
  body="$(cat <&3)"
  exec 3<&-
  [[ "$body" == "HTTP/1.0 200 OK"* ]] || return 1
  echo "${body#*$'\r\n\r\n'}"
}
# Each OSD's ports as status prints them (the ones of its current run) and its /metrics there.
for id in 0 1 2; do
  line="$(grep "^osd.$id: running" "$dir/status.txt")" || fail "status has no osd.$id"
  [[ "$line" =~ port\ [0-9]+,\ metrics\ http://127\.0\.0\.1:([0-9]+)/metrics$ ]] ||
    fail "osd.$id's ports in status: $line"
  mport="${BASH_REMATCH[1]}"
  grep -q "\"metrics_port\":$mport," "$dir/osd.$id.out" || fail "osd.$id's metrics port is not $mport"
  # The page first, then grep: `http_get | grep -q` under pipefail fails when grep stops
  # reading at its match and the writer gets SIGPIPE (a flake, seen once).
  metrics="$(http_get "$mport" /metrics)" || fail "osd.$id's /metrics: no page"
  grep -q '^ecstore_osd_map_epoch ' <<<"$metrics" || fail "osd.$id's /metrics"
done
# The cluster's metrics on the elected monitor's OSD, with ceph-mgr's names.
cm="$(grep '^cluster metrics' "$dir/status.txt")" || fail "status has no cluster metrics line"
[[ "$cm" =~ http://127\.0\.0\.1:([0-9]+)/metrics/cluster\ \(osd\.[0-9]+,\ the\ elected\ monitor\)$ ]] ||
  fail "cluster metrics line: $cm"
page="$(http_get "${BASH_REMATCH[1]}" /metrics/cluster)" || fail "no /metrics/cluster page"
for id in 0 1 2; do
  grep -qx "ceph_osd_up{ceph_daemon=\"osd.$id\"} 1" <<< "$page" || fail "no ceph_osd_up of osd.$id"
done
grep -q '^ceph_health_status ' <<< "$page" || fail "no ceph_health_status"

pids="$(cat "$dir"/*.pid)"
launcher stop --dir "$dir" > /dev/null
for p in $pids; do ! running "$p" || fail "pid $p still runs after stop"; done

# Bad arguments: a message and exit 1.
for args in "start" "start --dir $dir --osds 0" "start --dir $dir --osds 2 --hosts 3" \
            "start --dir $dir --osd-opt osd_port=7000" "frobnicate --dir $dir"; do
  # shellcheck disable=SC2086  # each entry is a command line
  if launcher $args > "$dir/out.txt" 2>&1; then fail "'$args' succeeded"; fi
  grep -q 'cluster.sh' "$dir/out.txt" || fail "'$args' printed no message: $(cat "$dir/out.txt")"
done

# The second cluster. The caller holds fd 9 on a file and flock holds a lock around start.
cur="$dir2"
exec 9> "$dir2/held"
flock "$dir2/lock" "$root/scripts/cluster.sh" start --dir "$dir2" --osds 4 --hosts 4 --grace 2 \
  --osd-opt osd_recovery_sleep=0 --auth none --etcd-tls off --bin "$bin" > "$dir2/start.txt"
grep -q '4 OSDs up on 4 hosts' "$dir2/start.txt" || fail "start: $(cat "$dir2/start.txt")"
# --auth none, for benchmarks: no keys, and -s says so.
grep -q '^auth: none' "$dir2/start.txt" || fail "start --auth none does not say so"
! ls "$dir2"/*.keyring > /dev/null 2>&1 || fail "--auth none made keyrings"
for _ in $(seq 1 50); do admin -s | grep -qx '    auth: none' && break; sleep 0.1; done
admin -s | grep -qx '    auth: none' || fail "-s does not say auth: none: $(admin -s)"
flock -n "$dir2/lock" true || fail "the lock held around start is still held after it returned"

# Every daemon: stdin /dev/null, stdout and stderr its log, and none of what this shell has open
# (fd 9's file, ctest's pipes); what the daemon opens itself (its store, etcd's wal) may be there.
check_fds() {
  local mine=() f pid name log link target
  for link in "/proc/$$/fd"/*; do
    target="$(readlink "$link")" || continue
    [ "$target" = /dev/null ] || mine+=("$target")
  done
  printf '%s\n' "${mine[@]}" | grep -qxF "$(readlink -f "$dir2/held")" || fail "fd 9 not open here"
  for f in "$dir2"/etcd.pid "$dir2"/osd.*.pid; do
    pid="$(cat "$f")" name="$(basename "$f" .pid)"
    if [ "$name" = etcd ]; then log="$dir2/etcd.log"; else log="$dir2/$name.out"; fi
    [ "$(readlink "/proc/$pid/fd/0")" = /dev/null ] || fail "$name: stdin is not /dev/null"
    [ "$(readlink "/proc/$pid/fd/1")" = "$log" ] || fail "$name: stdout is not $log"
    [ "$(readlink "/proc/$pid/fd/2")" = "$log" ] || fail "$name: stderr is not $log"
    for link in "/proc/$pid/fd"/*; do
      target="$(readlink "$link")" || continue
      if printf '%s\n' "${mine[@]}" | grep -qxF "$target"; then
        fail "$name (pid $pid) holds the caller's $target as fd ${link##*/}"
      fi
    done
  done
}
check_fds

# etcd's ports lie below the ephemeral range, and ecstore.conf names the client one.
read -r eph_lo _ < /proc/sys/net/ipv4/ip_local_port_range
read -r client_port peer_port < "$dir2/etcd.ports"
if [ "$client_port" -ge "$eph_lo" ] || [ "$peer_port" -ge "$eph_lo" ]; then
  fail "etcd's ports $client_port $peer_port are not below the ephemeral range (from $eph_lo)"
fi
grep -qx "etcd_endpoints = http://127.0.0.1:$client_port" "$dir2/ecstore.conf" ||
  fail "ecstore.conf does not name etcd's port $client_port"

admin osd erasure-code-profile set p21 plugin=jerasure k=2 m=1 crush-failure-domain=host > /dev/null
admin osd pool create p 8 8 erasure p21 > /dev/null 2>&1
head -c 1048576 /dev/urandom > "$dir2/obj"
"$bin/ec-rados" -c "$dir2/ecstore.conf" -p p put o "$dir2/obj"
cp "$dir2/ecstore.conf" "$dir2/conf.before"
pids="$(cat "$dir2"/*.pid)"
launcher stop --dir "$dir2" > /dev/null
for p in $pids; do ! running "$p" || fail "pid $p still runs after stop"; done

# Resume without options: the same shape, the same config, the object.
launcher start --dir "$dir2" --bin "$bin" > "$dir2/start.txt"
grep -q '4 OSDs up on 4 hosts' "$dir2/start.txt" || fail "resume: $(cat "$dir2/start.txt")"
[ "$(field num_osds)" = 4 ] || fail "num_osds $(field num_osds) after resume"
[ "$(field num_up_osds)" = 4 ] || fail "num_up_osds $(field num_up_osds) after resume"
diff <(grep -v '^etcd_endpoints' "$dir2/conf.before") <(grep -v '^etcd_endpoints' "$dir2/ecstore.conf") ||
  fail "resume changed ecstore.conf's shape"
"$bin/ec-rados" -c "$dir2/ecstore.conf" -p p get o "$dir2/obj.back"
cmp -s "$dir2/obj" "$dir2/obj.back" || fail "object read back after resume differs"
check_fds

# Options that agree are fine; one that contradicts is refused and changes nothing, running or not.
launcher start --dir "$dir2" --osds 4 --hosts 4 --grace 2 --osd-opt osd_recovery_sleep=0 \
  --bin "$bin" > /dev/null || fail "start with the cluster's own options refused"
cp "$dir2/ecstore.conf" "$dir2/conf.before"
pids="$(cat "$dir2"/*.pid)"
refused() {
  if launcher start --dir "$dir2" --osds 3 --bin "$bin" > "$dir2/out.txt" 2>&1; then
    fail "start --osds 3 on a 4-OSD cluster succeeded"
  fi
  grep -q -- '--osds 3, but the cluster has 4 OSDs' "$dir2/out.txt" ||
    fail "start --osds 3: $(cat "$dir2/out.txt")"
  if launcher start --dir "$dir2" --auth cephx --bin "$bin" > "$dir2/out.txt" 2>&1; then
    fail "start --auth cephx on a cluster without auth succeeded"
  fi
  grep -q -- '--auth cephx, but the cluster has auth_cluster_required = none' "$dir2/out.txt" ||
    fail "start --auth cephx: $(cat "$dir2/out.txt")"
  cmp -s "$dir2/conf.before" "$dir2/ecstore.conf" || fail "a refused start changed ecstore.conf"
}
refused
[ "$(cat "$dir2"/*.pid)" = "$pids" ] || fail "a refused start changed the daemons"
launcher stop --dir "$dir2" > /dev/null
refused
! ls "$dir2"/*.pid > /dev/null 2>&1 || fail "a refused start on a stopped cluster started something"
for p in $pids; do ! running "$p" || fail "pid $p still runs after stop"; done

# The third cluster: etcd as three members.
cur="$dir3"
launcher start --dir "$dir3" --etcd 3 --osds 3 --hosts 3 --grace 2 --bin "$bin" > "$dir3/start.txt"
grep -q '3 OSDs up on 3 hosts' "$dir3/start.txt" || fail "start --etcd 3: $(cat "$dir3/start.txt")"
ports=()
for i in 0 1 2; do
  grep -q "^etcd.$i: https://127.0.0.1:[0-9]* (data $dir3/etcd.$i, log $dir3/etcd.$i.log)" \
    "$dir3/start.txt" || fail "start does not name etcd.$i: $(cat "$dir3/start.txt")"
  read -r cp pp < "$dir3/etcd.$i.ports"
  if [ "$cp" -ge "$eph_lo" ] || [ "$pp" -ge "$eph_lo" ]; then fail "etcd.$i's ports $cp $pp"; fi
  ports+=("$cp" "$pp")
done
[ "$(printf '%s\n' "${ports[@]}" | sort -u | wc -l)" = 6 ] || fail "members share ports: ${ports[*]}"
endpoints="$(sed -n 's/^etcd_endpoints = //p' "$dir3/ecstore.conf")"
[ "$endpoints" = "https://127.0.0.1:${ports[0]},https://127.0.0.1:${ports[2]},https://127.0.0.1:${ports[4]}" ] ||
  fail "etcd_endpoints = $endpoints, ports ${ports[*]}"
# status: each member running, exactly one leader.
leader_of() {
  launcher status --dir "$dir3" --bin "$bin" > "$dir3/status.txt"
  grep -c '^etcd\.[0-2]: running (pid [0-9]*), https://127\.0\.0\.1:[0-9]*, \(leader\|follower\)$' \
    "$dir3/status.txt" > "$dir3/members.txt" || true
  [ "$(cat "$dir3/members.txt")" = "$1" ] || fail "not $1 members answering: $(cat "$dir3/status.txt")"
  [ "$(grep -c ', leader$' "$dir3/status.txt")" = 1 ] || fail "not one leader: $(cat "$dir3/status.txt")"
  sed -n 's/^etcd\.\([0-2]\): .*, leader$/\1/p' "$dir3/status.txt"
}
leader="$(leader_of 3)"
admin osd erasure-code-profile set p21 plugin=jerasure k=2 m=1 crush-failure-domain=host > /dev/null
admin osd pool create p 8 8 erasure p21 > /dev/null 2>&1
"$bin/ec-rados" -c "$dir3/ecstore.conf" -p p put o "$dir2/obj"
# The leader killed: the map is read and written through the other two, the object reads back.
kill -KILL "$(cat "$dir3/etcd.$leader.pid")"
grep -q "^etcd.$leader: not running" <(launcher status --dir "$dir3" --bin "$bin") ||
  fail "status does not say etcd.$leader is not running"
admin osd pool create q 8 8 erasure p21 > /dev/null 2>&1 || fail "pool create without the leader"
"$bin/ec-rados" -c "$dir3/ecstore.conf" -p p get o "$dir3/obj.back"
cmp -s "$dir2/obj" "$dir3/obj.back" || fail "object read back without the leader differs"
launcher start --dir "$dir3" --bin "$bin" > "$dir3/start.txt" || fail "restart of etcd.$leader"
grep -q "^etcd.$leader: http" "$dir3/start.txt" || fail "start did not restart etcd.$leader"
leader_of 3 > /dev/null
if launcher start --dir "$dir3" --etcd 1 --bin "$bin" > "$dir3/out.txt" 2>&1; then
  fail "start --etcd 1 on a 3-member cluster succeeded"
fi
grep -q -- '--etcd 1, but the cluster has 3 etcd members' "$dir3/out.txt" ||
  fail "start --etcd 1: $(cat "$dir3/out.txt")"
launcher stop --dir "$dir3" > /dev/null
# A member's client port taken while the cluster is stopped: start moves it.
listen_on() {  # port: a listener in the background, its pid in $holder
  python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(600)' "$1" &
  holder=$!
  for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done
  fail "no listener on $1"
}
listen_on "${ports[2]}"
launcher start --dir "$dir3" --bin "$bin" > "$dir3/start.txt" 2>&1 ||
  fail "start with etcd.1's client port taken: $(cat "$dir3/start.txt")"
grep -q "etcd.1's client port ${ports[2]} is taken; choosing another" "$dir3/start.txt" ||
  fail "start did not say etcd.1's client port moved: $(cat "$dir3/start.txt")"
read -r cp pp < "$dir3/etcd.1.ports"
if [ "$cp" = "${ports[2]}" ] || [ "$pp" != "${ports[3]}" ]; then fail "etcd.1's ports now $cp $pp"; fi
grep -qx "etcd_endpoints = https://127.0.0.1:${ports[0]},https://127.0.0.1:$cp,https://127.0.0.1:${ports[4]}" \
  "$dir3/ecstore.conf" || fail "etcd_endpoints not moved: $(grep etcd_endpoints "$dir3/ecstore.conf")"
leader_of 3 > /dev/null
"$bin/ec-rados" -c "$dir3/ecstore.conf" -p p get o "$dir3/obj.back"
cmp -s "$dir2/obj" "$dir3/obj.back" || fail "object read back after the move differs"
launcher stop --dir "$dir3" > /dev/null
kill "$holder"; wait "$holder" 2>/dev/null || true; holder=""
# Its peer port taken: the others know it there; start refuses before anything runs.
listen_on "${ports[3]}"
if launcher start --dir "$dir3" --bin "$bin" > "$dir3/out.txt" 2>&1; then
  fail "start with etcd.1's peer port taken succeeded"
fi
grep -q "etcd.1's peer port ${ports[3]} is held by another program" "$dir3/out.txt" ||
  fail "start with etcd.1's peer port taken: $(cat "$dir3/out.txt")"
! ls "$dir3"/*.pid > /dev/null 2>&1 || fail "a refused start started something: $(ls "$dir3"/*.pid)"
kill "$holder"; wait "$holder" 2>/dev/null || true; holder=""

# A cluster over TLS without etcd's users (--etcd-roles off), as one made before them: its
# client certificate replaced by one with a CN, as the older etcd_certs.sh made it. It starts
# and serves again as it was, and --etcd-roles on is refused on it; roles without TLS are refused.
cur="$dir4"
if launcher start --dir "$dir4/new" --etcd-tls off --etcd-roles on --bin "$bin" > "$dir4/out.txt" 2>&1; then
  fail "--etcd-roles on with --etcd-tls off succeeded"
fi
grep -qF -- "--etcd-roles on needs --etcd-tls on" "$dir4/out.txt" || fail "roles without TLS: $(cat "$dir4/out.txt")"
launcher start --dir "$dir4" --osds 1 --etcd-roles off --bin "$bin" > "$dir4/start.txt"
! grep -q '^etcd roles' "$dir4/start.txt" || fail "--etcd-roles off made roles"
! grep -q 'etcd_user' "$dir4/ecstore.conf" || fail "--etcd-roles off: etcd_user in ecstore.conf"
! ls "$dir4"/etcd.*.password > /dev/null 2>&1 || fail "--etcd-roles off made passwords"
launcher stop --dir "$dir4" > /dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=ecstore \
  -keyout "$dir4/tls/ecstore.key" -out "$dir4/old.csr" 2> /dev/null
printf 'extendedKeyUsage=clientAuth\n' > "$dir4/old.ext"
openssl x509 -req -in "$dir4/old.csr" -CA "$dir4/tls/ca.crt" -CAkey "$dir4/tls/ca.key" \
  -CAcreateserial -days 1 -extfile "$dir4/old.ext" -out "$dir4/tls/ecstore.crt" 2> /dev/null
launcher start --dir "$dir4" --bin "$bin" > "$dir4/start.txt" || fail "the older cluster did not start again"
admin osd tree > /dev/null || fail "ec-admin on the older cluster"
if launcher start --dir "$dir4" --etcd-roles on --bin "$bin" > "$dir4/out.txt" 2>&1; then
  fail "--etcd-roles on on a cluster without roles succeeded"
fi
grep -qF -- "--etcd-roles on, but the cluster's etcd has its users and roles off" "$dir4/out.txt" ||
  fail "--etcd-roles on on an older cluster: $(cat "$dir4/out.txt")"
launcher stop --dir "$dir4" > /dev/null
echo "launcher test passed"
