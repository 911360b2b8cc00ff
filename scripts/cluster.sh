#!/usr/bin/env bash
# The local cluster launcher, ecstore's embedded default (like Ceph's vstart.sh): etcd on loopback
# and N ec-osd daemons, each on a device file standing in for an NVMe device, spread over H
# simulated hosts, all under one directory.
#
#   scripts/cluster.sh start  --dir DIR [--osds N] [--hosts H] [--grace SECONDS]
#                             [--down-out SECONDS] [--device-size SIZE] [--bin DIR]
#                             [--osd-opt NAME=VALUE ...]
#   scripts/cluster.sh status --dir DIR
#   scripts/cluster.sh stop   --dir DIR
#
# start: starts etcd (free loopback ports, data in DIR/etcd), makes the OSD stores that do not
# exist yet (DIR/osd.N), writes DIR/ecstore.conf and starts the OSDs; it returns once every OSD is
# up in the cluster map, and prints how to use it. Every program takes `-c DIR/ecstore.conf` (or
# reads $EC_CONF). Starting again on the same DIR after a stop resumes the same cluster; on a
# running cluster, start starts whatever is not running (an OSD that was killed, say).
# status: which daemons run, and `ec-admin -s`.
# stop: SIGTERM to every OSD (each marks itself down), then etcd; SIGKILL after 30 s.
# --osd-opt NAME=VALUE (repeatable) adds an ec-osd option to the [osd] section of the config.
# Defaults: 3 OSDs on 3 hosts, grace 20 s and down-out 600 s (Ceph's), 256M device files.
# Needs: the build (scripts/build.sh release, or --bin), /usr/bin/etcd and etcdctl (setup.sh).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "cluster.sh: $*" >&2; exit 1; }

cmd="${1:-}"
[ -n "$cmd" ] || { usage >&2; exit 1; }
shift
case "$cmd" in -h|--help|help) usage; exit 0 ;; esac
dir="" osds=3 hosts="" grace=20 down_out=600 device_size=256M bin="$root/build/bin"
osd_opts=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:-}"; shift 2 ;;
    --osds) osds="${2:-}"; shift 2 ;;
    --hosts) hosts="${2:-}"; shift 2 ;;
    --grace) grace="${2:-}"; shift 2 ;;
    --down-out) down_out="${2:-}"; shift 2 ;;
    --device-size) device_size="${2:-}"; shift 2 ;;
    --bin) bin="${2:-}"; shift 2 ;;
    --osd-opt)
      [[ "${2:-}" =~ ^[a-z0-9_]+=.+$ ]] || die "--osd-opt takes NAME=VALUE (an ec-osd option)"
      osd_opts+=("$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$dir" ] || die "--dir DIR is required"
[[ "$osds" =~ ^[0-9]+$ ]] && [ "$osds" -ge 1 ] && [ "$osds" -le 64 ] || die "--osds must be 1..64"
[ -n "$hosts" ] || hosts="$osds"
[[ "$hosts" =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le "$osds" ] ||
  die "--hosts must be 1..--osds"
[[ "$grace" =~ ^[0-9]+$ ]] && [ "$grace" -ge 1 ] || die "--grace must be whole seconds >= 1"
[[ "$down_out" =~ ^[0-9]+$ ]] || die "--down-out must be whole seconds >= 0"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
conf="$dir/ecstore.conf"

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# A TCP port on 127.0.0.1 that nothing listens on (bash's /dev/tcp: a refused connect is free).
free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  die "no free port found"
}

stop_pid() {  # pidfile name
  local f="$1" name="$2" pid
  [ -f "$f" ] || return 0
  pid="$(cat "$f")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "$name did not stop in 30 s: SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$f"
}

do_stop() {
  local f
  for f in "$dir"/osd.*.pid; do
    [ -e "$f" ] || continue
    stop_pid "$f" "$(basename "$f" .pid)" &
  done
  wait
  stop_pid "$dir/etcd.pid" etcd
  echo "cluster in $dir stopped (data kept; 'start --dir $dir' resumes it)"
}

do_status() {
  [ -f "$conf" ] || die "no cluster in $dir (no ecstore.conf)"
  if alive "$dir/etcd.pid"; then echo "etcd: running (pid $(cat "$dir/etcd.pid"))"; else echo "etcd: not running"; fi
  local f
  for f in "$dir"/osd.*.pid; do
    [ -e "$f" ] || continue
    if alive "$f"; then echo "$(basename "$f" .pid): running (pid $(cat "$f"))"
    else echo "$(basename "$f" .pid): not running"; fi
  done
  if [ -x "$bin/ec-admin" ] && alive "$dir/etcd.pid"; then "$bin/ec-admin" -c "$conf" -s; fi
}

# Starts etcd on the ports in DIR/etcd.ports (chosen now if absent). Returns 1 if the ports were
# taken meanwhile (another program got there between the check and the bind), dies on other errors.
try_etcd() {
  local client_port peer_port
  if [ -f "$dir/etcd.ports" ]; then
    read -r client_port peer_port < "$dir/etcd.ports"
  else
    client_port="$(free_port)"
    peer_port="$(free_port)"
    while [ "$peer_port" = "$client_port" ]; do peer_port="$(free_port)"; done
    echo "$client_port $peer_port" > "$dir/etcd.ports"
  fi
  local c="http://127.0.0.1:$client_port" p="http://127.0.0.1:$peer_port"
  touch "$dir/etcd.log"
  local log_start; log_start=$(( $(wc -l < "$dir/etcd.log") + 1 ))
  setsid /usr/bin/etcd --name ecstore --data-dir "$dir/etcd" \
    --listen-client-urls "$c" --advertise-client-urls "$c" \
    --listen-peer-urls "$p" --initial-advertise-peer-urls "$p" \
    --initial-cluster "ecstore=$p" --initial-cluster-state new \
    >> "$dir/etcd.log" 2>&1 < /dev/null &
  echo $! > "$dir/etcd.pid"
  for _ in $(seq 1 200); do
    if ETCDCTL_API=3 etcdctl --endpoints "$c" --dial-timeout 1s endpoint health >/dev/null 2>&1; then
      echo "etcd: $c (data $dir/etcd, log $dir/etcd.log)"
      endpoints="$c"
      return 0
    fi
    if ! alive "$dir/etcd.pid"; then
      if tail -n "+$log_start" "$dir/etcd.log" | grep -q 'address already in use'; then
        rm -f "$dir/etcd.ports" "$dir/etcd.pid"
        return 1
      fi
      tail -n 20 "$dir/etcd.log" >&2
      die "etcd did not start"
    fi
    sleep 0.1
  done
  die "etcd did not become healthy in 20 s (log: $dir/etcd.log)"
}

start_etcd() {
  local attempt
  for attempt in 1 2 3 4 5; do
    if try_etcd; then return; fi
    echo "etcd's ports were taken meanwhile; choosing others" >&2
  done
  die "etcd could not bind its ports in 5 attempts (log: $dir/etcd.log)"
}

write_conf() {
  {
    echo "# A local ecstore cluster made by scripts/cluster.sh; every program takes -c $conf."
    echo "[global]"
    echo "etcd_endpoints = $endpoints"
    echo "osd_heartbeat_grace = ${grace}s"
    echo "mon_osd_down_out_interval = ${down_out}s"
    echo "[osd]"
    echo "osd_data = $dir/osd.\$id"
    echo "bluestore_block_size = $device_size"
    echo "osd_journal_size = 8"
    echo "osd_port = 0"
    echo "osd_metrics_port = 0"
    echo "log_file = $dir/osd.\$id.log"
    local opt
    for opt in "${osd_opts[@]}"; do echo "${opt%%=*} = ${opt#*=}"; done
    local id
    for id in $(seq 0 $((osds - 1))); do
      echo "[osd.$id]"
      echo "host = host$((id % hosts))"
    done
  } > "$conf.tmp"
  mv "$conf.tmp" "$conf"
}

start_osd() {  # id
  local id="$1"
  if [ ! -e "$dir/osd.$id/block" ]; then
    "$bin/ec-osd" -c "$conf" -i "$id" --mkfs > /dev/null || die "mkfs of osd.$id failed"
  fi
  : > "$dir/osd.$id.out"
  setsid "$bin/ec-osd" -c "$conf" -i "$id" >> "$dir/osd.$id.out" 2>&1 < /dev/null &
  echo $! > "$dir/osd.$id.pid"
}

do_start() {
  [ -x "$bin/ec-osd" ] || die "no $bin/ec-osd: build first (scripts/build.sh release)"
  [ -x /usr/bin/etcd ] || die "no /usr/bin/etcd: run scripts/setup.sh"
  command -v etcdctl >/dev/null || die "no etcdctl: run scripts/setup.sh"
  endpoints=""
  local id
  if alive "$dir/etcd.pid"; then
    # Running: keep its config; start what is not running.
    [ -f "$conf" ] || die "etcd runs in $dir but there is no $conf"
    endpoints="$(sed -n 's/^etcd_endpoints = //p' "$conf")"
    osds="$(grep -c '^\[osd\.[0-9]*\]' "$conf")"
    hosts="$(sed -n 's/^host = //p' "$conf" | sort -u | wc -l)"
    echo "etcd: $endpoints (running)"
  else
    start_etcd
    write_conf
  fi
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
  echo "config: $conf   (export EC_CONF=$conf, or pass -c)"
  if [ -x "$bin/ec-admin" ]; then "$bin/ec-admin" -c "$conf" -s || true; fi
}

case "$cmd" in
  start) do_start ;;
  status) do_status ;;
  stop) do_stop ;;
  *) die "unknown command '$cmd': start, status or stop (see --help)" ;;
esac
