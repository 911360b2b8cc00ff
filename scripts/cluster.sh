#!/usr/bin/env bash
# The local cluster launcher, ecstore's embedded default (like Ceph's vstart.sh): etcd on loopback
# and N ec-osd daemons, each on a device file standing in for an NVMe device, spread over H
# simulated hosts, all under one directory.
#
#   scripts/cluster.sh start  --dir DIR [--osds N] [--hosts H] [--etcd M] [--grace SECONDS]
#                             [--down-out SECONDS] [--device-size SIZE] [--bin DIR]
#                             [--auth cephx|none] [--etcd-tls on|off] [--etcd-roles on|off]
#                             [--osd-opt NAME=VALUE ...]
#   scripts/cluster.sh status --dir DIR
#   scripts/cluster.sh stop   --dir DIR
#
# start: starts etcd (data in DIR/etcd), makes the OSD stores that do not exist yet (DIR/osd.N),
# writes DIR/ecstore.conf and starts the OSDs; it returns once every OSD is up in the cluster map,
# and prints how to use it. Every program takes `-c DIR/ecstore.conf` (or reads $EC_CONF).
# --etcd M: etcd as a cluster of M members (1..9; default 1), each on its own client and peer
# ports, with its data in DIR/etcd.I and its log in DIR/etcd.I.log (I = 0..M-1; one member keeps
# DIR/etcd and DIR/etcd.log). ecstore.conf's etcd_endpoints names every member's client URL, and
# every program (ec-osd, ec-admin, ec-rados) tries them in turn: with 3 members the cluster map
# survives the loss of any one (5: any two); with a majority of them down (the quorum lost) a
# program that needs etcd fails with an error naming every endpoint, and running OSDs serve I/O
# for at most osd_heartbeat_grace more (README.md, "A local cluster").
# A cluster keeps the shape of its first start: DIR/ecstore.conf is its record (OSDs, hosts,
# etcd members, grace, down-out, device size, --osd-opt options). start on a DIR that has one
# resumes that cluster (after a stop) or starts whatever is not running (an OSD or an etcd member
# that was killed, say), and never rewrites the config with other values; options may be given
# again if they agree, and start refuses (exit 1, nothing started or changed) options that
# contradict it, growing included (more OSDs, hosts or etcd members): make a new cluster in
# another --dir for another shape.
# status: which daemons run (each etcd member with its client URL and whether it leads, as its
# /v3/maintenance/status says through etcdctl; each OSD with its ports and /metrics address),
# where the cluster's metrics are served (/metrics/cluster of the elected monitor's OSD), and
# `ec-admin -s`.
# stop: SIGTERM to every OSD (each marks itself down), then to every etcd member; SIGKILL after
# 30 s.
# --auth cephx (the default) or none: auth_cluster_required for every program (issue 32). With
# cephx, the first start makes the cluster's keys with ec-admin (`auth init`: the mon. key and
# client.admin's in DIR/client.admin.keyring; `auth get-or-create osd.N`: each OSD's key with the
# mon. key in DIR/osd.N.keyring, mode 0600), and ecstore.conf names them (keyring =
# DIR/$name.keyring), so every program given -c DIR/ecstore.conf authenticates: connections
# prove their keys both ways and every frame carries a MAC. none turns that off, for benchmarks
# (nothing is authenticated or signed: anyone who reaches an OSD's port may read and write). The
# choice is part of the cluster's shape; `ec-admin -s` says which one the OSDs run with (auth:).
# --etcd-tls on (the default) or off: etcd over TLS with client certificates (issue 32 item 3).
# With on, the first start makes a CA, etcd's server certificate and a client certificate in
# DIR/tls (scripts/etcd_certs.sh, with openssl), etcd serves https only to clients whose
# certificate the CA signed (--client-cert-auth), and ecstore.conf names https endpoints and the
# files (etcd_ca_file, etcd_cert_file, etcd_key_file) for every program. Part of the shape too.
# --etcd-roles on (the default with --etcd-tls on; needs it) or off: etcd's own users and roles,
# so that each program may touch only its keys. The first start makes three etcd users with
# etcdctl, each with a random password (openssl rand) in DIR/etcd.USER.password (mode 0600): root
# (etcd's administrator, which etcd requires before `auth enable`: ec-admin, [client.admin]), osd
# (role osd, readwrite on the cluster's prefix /ecstore/: the OSDs and their monitor write the
# map, liveness, stats, failure reports; [osd]) and client (role client, read on the prefix:
# the client library and ec-rados read the map and the reports and write nothing; [client]),
# then enables etcd's auth. ecstore.conf names each section's etcd_user and etcd_password_file.
# Part of the shape: a cluster made without (an older one included) keeps etcd's auth off.
# --osd-opt NAME=VALUE (repeatable) adds an ec-osd option to the [osd] section of the config
# (not one the launcher sets itself: use --grace, --down-out, --device-size for those).
# Defaults: 3 OSDs on 3 hosts, grace 20 s and down-out 600 s (Ceph's), 256M device files.
# Ports: each etcd member's two loopback ports are chosen among free ones below the kernel's
# ephemeral range (/proc/sys/net/ipv4/ip_local_port_range: 10000..low-1, or above the range if it
# starts too low to leave room), so that no outgoing connection can take them; they are kept in
# DIR/etcd.ports (DIR/etcd.I.ports) and used again at the next start unless something took them
# meanwhile (then others are chosen and only etcd_endpoints in ecstore.conf changes; a member of
# several keeps its peer port, which the others have recorded: start refuses to run it elsewhere
# and says which program holds it). OSDs bind port 0: the kernel gives each a
# free port as it binds, and the OSD publishes its address in the cluster map, where clients and
# other OSDs find it. Each OSD's HTTP endpoint (/metrics, /status; osd_metrics_port 0) gets a
# kernel-chosen port too: the OSD prints both ports in its ready line, the launcher keeps them in
# DIR/osd.N.ports ("PORT METRICS_PORT") and start and status print them, with the address of the
# cluster's metrics (ceph-mgr's names, /metrics/cluster) on the elected monitor's OSD.
# Daemons: each etcd member and each ec-osd run in their own session with stdin /dev/null, stdout
# and stderr in their log (DIR/etcd.log or DIR/etcd.I.log, DIR/osd.N.out) and no other descriptor
# of the caller's (so
# `flock LOCK scripts/cluster.sh start ...` releases LOCK when start returns).
# Needs: the build (scripts/build.sh release, or --bin), /usr/bin/etcd and etcdctl (setup.sh), and
# scripts/cluster_etcd.sh beside it (etcd's members and ports).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "cluster.sh: $*" >&2; exit 1; }

cmd="${1:-}"
[ -n "$cmd" ] || { usage >&2; exit 1; }
shift
case "$cmd" in -h|--help|help) usage; exit 0 ;; esac
# Shape options stay empty unless given: on an existing cluster they are checked against its
# record, on a new one the defaults fill them.
dir="" osds="" hosts="" etcd_n="" grace="" down_out="" device_size="" auth="" etcd_tls="" etcd_roles=""
bin="$root/build/bin"
osd_opts=()
# The options the launcher writes itself, which --osd-opt may not set again.
own_keys=" etcd_endpoints osd_heartbeat_grace mon_osd_down_out_interval osd_data
  bluestore_block_size osd_journal_size osd_port osd_metrics_port log_file host
  auth_cluster_required keyring etcd_ca_file etcd_cert_file etcd_key_file etcd_user
  etcd_password_file "
key_name() { local k="${1,,}"; k="${k//-/_}"; echo "${k// /_}"; }  # Ceph's spellings of a name
trim() { local s="$1"; s="${s#"${s%%[![:space:]]*}"}"; echo "${s%"${s##*[![:space:]]}"}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:-}"; shift 2 ;;
    --osds) osds="${2:-}"; shift 2 ;;
    --hosts) hosts="${2:-}"; shift 2 ;;
    --etcd) etcd_n="${2:-}"; shift 2 ;;
    --grace) grace="${2:-}"; shift 2 ;;
    --down-out) down_out="${2:-}"; shift 2 ;;
    --device-size) device_size="${2:-}"; shift 2 ;;
    --bin) bin="${2:-}"; shift 2 ;;
    --auth) auth="${2:-}"; shift 2 ;;
    --etcd-tls) etcd_tls="${2:-}"; shift 2 ;;
    --etcd-roles) etcd_roles="${2:-}"; shift 2 ;;
    --osd-opt)
      [[ "${2:-}" =~ ^[A-Za-z0-9_\ -]+=.+$ ]] || die "--osd-opt takes NAME=VALUE (an ec-osd option)"
      name="$(key_name "$(trim "${2%%=*}")")"
      [[ "$own_keys" != *" $name "* ]] ||
        die "--osd-opt $name: the launcher sets $name itself (see --help)"
      osd_opts+=("$name=$(trim "${2#*=}")"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$dir" ] || die "--dir DIR is required"
num() { [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }  # V MIN MAX
if [ -n "$osds" ] && ! num "$osds" 1 64; then die "--osds must be 1..64"; fi
if [ -n "$hosts" ] && ! num "$hosts" 1 64; then die "--hosts must be 1..--osds"; fi
if [ -n "$etcd_n" ] && ! num "$etcd_n" 1 9; then
  die "--etcd must be 1..9 etcd members (3 survives the loss of one, 5 of two)"
fi
if [ -n "$grace" ] && ! num "$grace" 1 99999999; then die "--grace must be whole seconds >= 1"; fi
if [ -n "$down_out" ] && ! num "$down_out" 0 99999999; then
  die "--down-out must be whole seconds >= 0"
fi
if [ -n "$auth" ] && [ "$auth" != cephx ] && [ "$auth" != none ]; then
  die "--auth takes cephx (the default: keys, mutual proofs, a MAC on every frame) or none"
fi
if [ -n "$etcd_tls" ] && [ "$etcd_tls" != on ] && [ "$etcd_tls" != off ]; then
  die "--etcd-tls takes on (the default: https with client certificates) or off"
fi
if [ -n "$etcd_roles" ] && [ "$etcd_roles" != on ] && [ "$etcd_roles" != off ]; then
  die "--etcd-roles takes on (the default: etcd users and roles per program) or off"
fi
size_re='^[0-9]+([KMGTkmgt](i?B)?|B)?$'
if [ -n "$device_size" ]; then
  [[ "$device_size" =~ $size_re ]] || die "--device-size takes a size such as 256M or 1G"
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
conf="$dir/ecstore.conf"

# Whether process PID runs: one that died and that its adopter has not reaped yet (a zombie; PID 1
# of a container may be slow to) does not.
pid_alive() {  # PID
  kill -0 "$1" 2>/dev/null || return 1
  ! sed -E 's/^[0-9]+ \(.*\) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'
}
# Whether the daemon of pid file F runs.
alive() { [ -f "$1" ] && pid_alive "$(cat "$1")"; }  # F

# Runs CMD as a daemon: its own session, stdin /dev/null, stdout and stderr appended to LOG, and
# no other descriptor (the subshell closes every one above 2 before exec, so a lock or pipe the
# caller holds is not kept for the daemon's life). $! is the daemon's pid: setsid execs in place,
# since a background subshell of a script leads no process group.
spawn() {  # LOG CMD...
  local log="$1"; shift
  (
    for fd in /proc/"$BASHPID"/fd/*; do
      fd="${fd##*/}"
      if [ "$fd" -gt 2 ]; then exec {fd}>&-; fi
    done
    exec setsid "$@"
  ) >> "$log" 2>&1 < /dev/null &
}

stop_pid() {  # pidfile name
  local f="$1" name="$2" pid
  [ -f "$f" ] || return 0
  pid="$(cat "$f")"
  if pid_alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do pid_alive "$pid" || break; sleep 0.1; done
    if pid_alive "$pid"; then
      echo "$name did not stop in 30 s: SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$f"
}

# etcd's members and the launcher's ports (etcd_base, etcd_ports, start_etcd, ...).
# shellcheck source=scripts/cluster_etcd.sh
source "$root/scripts/cluster_etcd.sh"

do_stop() {
  local f
  for f in "$dir"/osd.*.pid; do
    [ -e "$f" ] || continue
    stop_pid "$f" "$(basename "$f" .pid)" &
  done
  wait
  for f in $(etcd_pidfiles); do stop_pid "$f" "$(basename "$f" .pid)" & done
  wait
  echo "cluster in $dir stopped (data kept; 'start --dir $dir' resumes it)"
}

do_status() {
  [ -f "$conf" ] || die "no cluster in $dir (no ecstore.conf)"
  read_shape
  etcd_n="$rec_etcd" etcd_tls="$rec_tls" etcd_roles="$rec_roles"
  set_etcd_tls
  if [ "$etcd_n" -eq 1 ]; then
    if alive "$dir/etcd.pid"; then echo "etcd: running (pid $(cat "$dir/etcd.pid"))"; else echo "etcd: not running"; fi
  else
    etcd_member_lines
  fi
  local f name
  for f in "$dir"/osd.*.pid; do
    [ -e "$f" ] || continue
    name="$(basename "$f" .pid)"
    if alive "$f"; then
      save_ports "${name#osd.}"
      echo "$name: running (pid $(cat "$f")), $(osd_ports_text "${name#osd.}")"
    else echo "$name: not running"; fi
  done
  if etcd_any_alive; then show_cluster_metrics; fi
  if [ -x "$bin/ec-admin" ] && etcd_any_alive; then "$bin/ec-admin" -c "$conf" -s; fi
}

# The shape of the cluster DIR/ecstore.conf records (as write_conf writes it; names in any of
# Ceph's spellings): rec_osds, rec_hosts, rec_etcd (the members etcd_endpoints names), rec_grace,
# rec_down_out, rec_device_size as written there, rec_opts[NAME]=VALUE for the [osd] options the launcher does not set itself.
declare -A rec_opts=()
read_shape() {
  local line section="" key value ids=0
  local -A host_names=()
  rec_grace="" rec_down_out="" rec_device_size="" rec_endpoints="" rec_auth=none rec_roles=off
  while IFS= read -r line || [ -n "$line" ]; do
    line="$(trim "$line")"
    case "$line" in
      ''|'#'*|';'*) continue ;;
      '['*']') section="$(trim "${line:1:${#line}-2}")"; continue ;;
      *=*) ;;
      *) continue ;;
    esac
    key="$(key_name "$(trim "${line%%=*}")")"
    value="$(trim "${line#*=}")"
    case "$section:$key" in
      *:etcd_user) rec_roles=on ;;
      global:etcd_endpoints) rec_endpoints="$value" ;;
      global:osd_heartbeat_grace) rec_grace="$value" ;;
      global:mon_osd_down_out_interval) rec_down_out="$value" ;;
      global:auth_cluster_required) rec_auth="$value" ;;
      osd:bluestore_block_size) rec_device_size="$value" ;;
      osd:*) [[ "$own_keys" == *" $key "* ]] || rec_opts[$key]="$value" ;;
      osd.*:host) host_names[$value]=1 ;;
    esac
  done < "$conf"
  # etcd's members: as many as etcd_endpoints names.
  rec_etcd="$(tr ',' '\n' <<< "$rec_endpoints" | grep -c '[^[:space:]]' || true)"
  if [[ "$rec_endpoints" == https://* ]]; then rec_tls=on; else rec_tls=off; fi
  [ "$rec_etcd" -ge 1 ] || rec_etcd=1
  ids="$(grep -c '^[[:space:]]*\[osd\.[0-9]*\]' "$conf" || true)"
  rec_osds="$ids"
  rec_hosts="${#host_names[@]}"
  [ "$rec_osds" -ge 1 ] || die "$conf names no OSD ([osd.N] sections): not a cluster this launcher made"
}

seconds_of() { local v="${1%s}"; [[ "$v" =~ ^[0-9]+$ ]] && echo "$v" || echo "$1"; }
bytes_of() {  # a size as ParseSize reads it (64K, 64KiB, 64KB, 3M, 512B) in bytes; else itself
  local v="$1" n unit
  [[ "$v" =~ $size_re ]] || { echo "$v"; return; }
  n="${v%%[!0-9]*}"; unit="${v#"$n"}"; unit="${unit%B}"; unit="${unit%i}"
  case "${unit^^}" in
    '') echo "$n" ;; K) echo $((n << 10)) ;; M) echo $((n << 20)) ;;
    G) echo $((n << 30)) ;; T) echo $((n << 40)) ;;
  esac
}

# An existing cluster: its recorded shape, and a refusal of every option that contradicts it.
# A new one: the defaults for what was not given.
resolve_shape() {
  if [ ! -f "$conf" ]; then
    osds="${osds:-3}" hosts="${hosts:-$osds}" etcd_n="${etcd_n:-1}" grace="${grace:-20}"
    down_out="${down_out:-600}"
    device_size="${device_size:-256M}"
    auth="${auth:-cephx}"
    etcd_tls="${etcd_tls:-on}"
    etcd_roles="${etcd_roles:-$etcd_tls}"
    [ "$hosts" -le "$osds" ] || die "--hosts must be 1..--osds"
    if [ "$etcd_roles" = on ] && [ "$etcd_tls" = off ]; then
      die "--etcd-roles on needs --etcd-tls on (the passwords and tokens would cross the network" \
          "in the clear)"
    fi
    return
  fi
  read_shape
  local bad=() opt name value
  if [ -n "$osds" ] && [ "$osds" != "$rec_osds" ]; then
    bad+=("--osds $osds, but the cluster has $rec_osds OSDs")
  fi
  if [ -n "$hosts" ] && [ "$hosts" != "$rec_hosts" ]; then
    bad+=("--hosts $hosts, but the cluster has $rec_hosts hosts")
  fi
  if [ -n "$etcd_n" ] && [ "$etcd_n" != "$rec_etcd" ]; then
    bad+=("--etcd $etcd_n, but the cluster has $rec_etcd etcd member$([ "$rec_etcd" -eq 1 ] ||
          echo s) (etcd_endpoints = $rec_endpoints)")
  fi
  if [ -n "$grace" ] && [ "$grace" != "$(seconds_of "$rec_grace")" ]; then
    bad+=("--grace $grace, but the cluster has osd_heartbeat_grace = ${rec_grace:-(unset)}")
  fi
  if [ -n "$down_out" ] && [ "$down_out" != "$(seconds_of "$rec_down_out")" ]; then
    bad+=("--down-out $down_out, but the cluster has mon_osd_down_out_interval = ${rec_down_out:-(unset)}")
  fi
  if [ -n "$device_size" ] && [ "$(bytes_of "$device_size")" != "$(bytes_of "$rec_device_size")" ]; then
    bad+=("--device-size $device_size, but the cluster has bluestore_block_size = ${rec_device_size:-(unset)}")
  fi
  if [ -n "$etcd_tls" ] && [ "$etcd_tls" != "$rec_tls" ]; then
    bad+=("--etcd-tls $etcd_tls, but the cluster's etcd has TLS $rec_tls (etcd_endpoints = $rec_endpoints)")
  fi
  if [ -n "$etcd_roles" ] && [ "$etcd_roles" != "$rec_roles" ]; then
    bad+=("--etcd-roles $etcd_roles, but the cluster's etcd has its users and roles $rec_roles" \
          "($([ "$rec_roles" = on ] && echo "etcd_user in" || echo "no etcd_user in") $conf)")
  fi
  if [ -n "$auth" ] && [ "$auth" != "$rec_auth" ]; then
    bad+=("--auth $auth, but the cluster has auth_cluster_required = $rec_auth")
  fi
  for opt in "${osd_opts[@]}"; do
    name="${opt%%=*}" value="${opt#*=}"
    if [ -z "${rec_opts[$name]+set}" ]; then
      bad+=("--osd-opt $opt, but the cluster's [osd] section has no $name")
    elif [ "${rec_opts[$name]}" != "$value" ]; then
      bad+=("--osd-opt $opt, but the cluster has $name = ${rec_opts[$name]}")
    fi
  done
  if [ "${#bad[@]}" -gt 0 ]; then
    {
      echo "cluster.sh: refusing to start: these options contradict the cluster in $dir (its"
      echo "shape, recorded at its first start in $conf):"
      printf '  %s\n' "${bad[@]}"
      echo "A cluster keeps its shape (growing it is not supported either): start it without these"
      echo "options, or make a new cluster with another --dir. Nothing was started or changed."
    } >&2
    exit 1
  fi
  osds="$rec_osds" hosts="$rec_hosts" etcd_n="$rec_etcd" auth="$rec_auth" etcd_tls="$rec_tls"
  etcd_roles="$rec_roles"
}

write_conf() {
  {
    echo "# A local ecstore cluster made by scripts/cluster.sh; every program takes -c $conf."
    echo "# This file records the cluster's shape: 'cluster.sh start' resumes it and refuses"
    echo "# options that contradict it."
    echo "[global]"
    echo "etcd_endpoints = $endpoints"
    echo "osd_heartbeat_grace = ${grace}s"
    echo "mon_osd_down_out_interval = ${down_out}s"
    echo "auth_cluster_required = $auth"
    if [ "$auth" = cephx ]; then echo "keyring = $dir/\$name.keyring"; fi
    if [ "$etcd_tls" = on ]; then
      echo "etcd_ca_file = $dir/tls/ca.crt"
      echo "etcd_cert_file = $dir/tls/ecstore.crt"
      echo "etcd_key_file = $dir/tls/ecstore.key"
    fi
    echo "[osd]"
    echo "osd_data = $dir/osd.\$id"
    echo "bluestore_block_size = $device_size"
    echo "osd_journal_size = 8"
    echo "osd_port = 0"
    echo "osd_metrics_port = 0"
    echo "log_file = $dir/osd.\$id.log"
    local opt
    for opt in "${osd_opts[@]}"; do echo "${opt%%=*} = ${opt#*=}"; done
    if [ "$etcd_roles" = on ]; then etcd_user_lines osd; fi
    local id
    for id in $(seq 0 $((osds - 1))); do
      echo "[osd.$id]"
      echo "host = host$((id % hosts))"
    done
    if [ "$etcd_roles" = on ]; then
      echo "[client]"
      etcd_user_lines client
      echo "[client.admin]"
      etcd_user_lines root
    fi
  } > "$conf.tmp"
  mv "$conf.tmp" "$conf"
}

# An existing config keeps every line but etcd_endpoints, which changes only if etcd had to move.
update_endpoints() {
  [ "$endpoints" != "$rec_endpoints" ] || return 0
  sed -E "s|^([[:space:]]*etcd[_ -]endpoints[[:space:]]*=).*|\\1 $endpoints|" "$conf" > "$conf.tmp"
  mv "$conf.tmp" "$conf"
  echo "etcd_endpoints in $conf: ${rec_endpoints:-(none)} -> $endpoints"
}

# The ports OSD ID serves on, from the ready line of its current run, into DIR/osd.ID.ports as
# "PORT METRICS_PORT" (METRICS_PORT 0 when its HTTP endpoint is disabled).
save_ports() {  # id
  local id="$1" line port mport
  line="$(grep -m 1 '"event":"ready"' "$dir/osd.$id.out" 2>/dev/null)" || return 0
  port="$(sed -E 's/.*"port":([0-9]+).*/\1/' <<< "$line")"
  mport="$(sed -E 's/.*"metrics_port":([0-9]+).*/\1/' <<< "$line")"
  [[ "$port" =~ ^[0-9]+$ && "$mport" =~ ^[0-9]+$ ]] || return 0
  echo "$port $mport" > "$dir/osd.$id.ports"
}

# A value ecstore.conf sets (the first line naming KEY, in any of Ceph's spellings), or "".
conf_value() {  # key
  local pattern="${1//_/[_ -]}"
  sed -nE "s/^[[:space:]]*${pattern}[[:space:]]*=[[:space:]]*//p" "$conf" | head -n 1
}

# The host part of the OSDs' HTTP addresses: osd_metrics_addr as --osd-opt set it, else loopback
# (a wildcard is reached on loopback).
metrics_host() {
  local h
  h="$(conf_value osd_metrics_addr)"
  case "${h:-127.0.0.1}" in
    0.0.0.0) echo 127.0.0.1 ;; ::) echo '[::1]' ;; *:*) echo "[$h]" ;; *) echo "${h:-127.0.0.1}" ;;
  esac
}

# "port P, metrics http://HOST:M/metrics" for OSD ID, from DIR/osd.ID.ports.
osd_ports_text() {  # id
  local port mport
  if ! read -r port mport 2>/dev/null < "$dir/osd.$1.ports"; then echo "ports unknown"; return 0; fi
  if [ "$mport" = 0 ]; then echo "port $port, metrics disabled"
  else echo "port $port, metrics http://$(metrics_host):$mport/metrics"; fi
}

# Where the cluster's metrics are: /metrics/cluster on the OSD that is the elected monitor now
# (its name in the monitor's leader key in etcd), or nothing when none is known.
show_cluster_metrics() {
  local prefix id port mport
  prefix="$(conf_value etcd_prefix)"
  id="$(etcdctl_as client "${etcdctl_tls[@]}" --endpoints "$(conf_value etcd_endpoints)" --dial-timeout 2s \
          --command-timeout 3s get --print-value-only "${prefix:-/ecstore/}mon/leader" 2>/dev/null |
        grep -o '"name":"osd\.[0-9]*"' | grep -o '[0-9][0-9]*')" || true
  if [ -z "$id" ] || ! read -r port mport 2>/dev/null < "$dir/osd.$id.ports" || [ "$mport" = 0 ]; then
    echo "cluster metrics: no elected monitor with an HTTP endpoint yet"
    return 0
  fi
  echo "cluster metrics (ceph-mgr's names): http://$(metrics_host):$mport/metrics/cluster" \
       "(osd.$id, the elected monitor)"
}

# With cephx: the cluster's keys, made once with ec-admin as an operator would (Ceph's
# `auth get-or-create`), each keyring readable by its owner only. An OSD's keyring holds the mon.
# key too: the OSDs open the auth database with it (msg/auth/README.md).
make_keys() {
  [ "$auth" = cephx ] || return 0
  local admin_ring="$dir/client.admin.keyring" id ring
  if [ ! -f "$admin_ring" ]; then
    "$bin/ec-admin" -c "$conf" auth init > /dev/null 2>&1 ||
      die "ec-admin auth init failed: $("$bin/ec-admin" -c "$conf" auth init 2>&1 | tail -n 1)"
  fi
  for id in $(seq 0 $((osds - 1))); do
    ring="$dir/osd.$id.keyring"
    [ -f "$ring" ] && continue
    (
      umask 077
      "$bin/ec-admin" -c "$conf" auth get-or-create "osd.$id" mon 'allow profile osd' \
        osd 'allow *' > "$ring.tmp" || exit 1
      awk '/^\[/ { keep = ($0 == "[mon.]") } keep' "$admin_ring" >> "$ring.tmp"
      mv "$ring.tmp" "$ring"
    ) || die "cannot make osd.$id's key (ec-admin auth get-or-create osd.$id)"
  done
}

start_osd() {  # id
  local id="$1"
  if [ ! -e "$dir/osd.$id/block" ]; then
    "$bin/ec-osd" -c "$conf" -i "$id" --mkfs > /dev/null || die "mkfs of osd.$id failed"
  fi
  : > "$dir/osd.$id.out"
  spawn "$dir/osd.$id.out" "$bin/ec-osd" -c "$conf" -i "$id"
  echo $! > "$dir/osd.$id.pid"
}

do_start() {
  [ -x "$bin/ec-osd" ] || die "no $bin/ec-osd: build first (scripts/build.sh release)"
  [ -x /usr/bin/etcd ] || die "no /usr/bin/etcd: run scripts/setup.sh"
  command -v etcdctl >/dev/null || die "no etcdctl: run scripts/setup.sh"
  if etcd_any_alive && [ ! -f "$conf" ]; then die "etcd runs in $dir but there is no $conf"; fi
  resolve_shape   # before anything starts: a refusal leaves DIR as it was
  set_etcd_tls
  if [ "$etcd_tls" = on ]; then
    "$root/scripts/etcd_certs.sh" "$dir/tls" > /dev/null || die "cannot make etcd's certificates"
  fi
  endpoints=""
  local id all_alive=1
  for id in $(seq 0 $((etcd_n - 1))); do alive "$(etcd_base "$id").pid" || all_alive=0; done
  if [ "$all_alive" -eq 1 ]; then
    # Running: keep its config; start what is not running.
    endpoints="$rec_endpoints"
    echo "etcd: $endpoints (running)"
  else
    start_etcd
    if [ -f "$conf" ]; then update_endpoints; else write_conf; fi
  fi
  make_etcd_users
  make_keys
  for id in $(seq 0 $((osds - 1))); do
    if alive "$dir/osd.$id.pid"; then continue; fi
    start_osd "$id"
  done
  # Ready means booted: the OSD prints its ready line after its boot txn put it up in the map.
  local deadline=$((SECONDS + 60)) pending
  while :; do
    pending=0
    for id in $(seq 0 $((osds - 1))); do
      grep -q '"event":"ready"' "$dir/osd.$id.out" 2>/dev/null && continue
      pending=1
      if ! alive "$dir/osd.$id.pid"; then
        echo "osd.$id exited:" >&2; tail -n 5 "$dir/osd.$id.out" >&2
        do_stop >/dev/null; exit 1
      fi
    done
    [ "$pending" -eq 0 ] && break
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "OSDs not up after 60 s" >&2; do_stop >/dev/null; exit 1
    fi
    sleep 0.1
  done
  echo "$osds OSDs up on $hosts hosts (stores in $dir/osd.N, logs $dir/osd.N.log)"
  for id in $(seq 0 $((osds - 1))); do
    save_ports "$id"
    echo "osd.$id: $(osd_ports_text "$id")"
  done
  show_cluster_metrics
  if [ "$auth" = cephx ]; then
    echo "auth: cephx (keyrings $dir/client.admin.keyring and $dir/osd.N.keyring; --auth none turns it off)"
  else
    echo "auth: none (nothing authenticated or signed: for benchmarks)"
  fi
  if [ "$etcd_roles" = on ]; then
    echo "etcd roles: on (users root for ec-admin, osd, client; passwords in $dir/etcd.USER.password)"
  fi
  echo "config: $conf   (export EC_CONF=$conf, or pass -c)"
  if [ -x "$bin/ec-admin" ]; then "$bin/ec-admin" -c "$conf" -s || true; fi
}

case "$cmd" in
  start) do_start ;;
  status) do_status ;;
  stop) do_stop ;;
  *) die "unknown command '$cmd': start, status or stop (see --help)" ;;
esac
