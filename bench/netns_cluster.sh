#!/usr/bin/env bash
# A local ecstore cluster whose hosts are network namespaces joined by rate-limited links: one
# namespace per OSD host (ecn-TAG-h1 ... ecn-TAG-hN) and one for etcd (ecn-TAG-etcd, which is also
# the client host), each joined by a veth pair to a bridge in the root namespace, private 10.213.X.0/24
# addresses, tc tbf at RATE on both directions of every link (and optional netem delay).
#
#   bench/netns_cluster.sh start  --dir DIR --hosts N [--rate 1gbit] [--delay 0ms]
#                                 [--osds-per-host 1] [--device-size 1G] [--bin build/bin]
#                                 [--grace S] [--down-out S] [--burst BYTES]
#                                 [--osd-opt KEY=VALUE]... [--dscp-bands on|off]
#   bench/netns_cluster.sh status --dir DIR
#   bench/netns_cluster.sh stop   --dir DIR
#   bench/netns_cluster.sh exec   --dir DIR HOST CMD...   HOST: hN (or N), etcd (or client)
#   bench/netns_cluster.sh fault  --dir DIR HOST RULE...  (network faults on HOST's link)
#   bench/netns_cluster.sh heal   --dir DIR HOST
#
# start: makes the namespaces, links and qdiscs, starts etcd in ecn-TAG-etcd, makes the OSD stores
# that do not exist yet (DIR/osd.ID), writes DIR/ecstore.conf (usable from the root namespace and
# from every namespace: `ec-admin -c DIR/ecstore.conf`) and starts ec-osd daemons in their host
# namespaces, host hN holding osd (N-1)*P ... N*P-1 as CRUSH host "hN", each OSD with
# osd_network_bandwidth = RATE (the repair cost model of osd_repair_pipeline=auto; OSDs sharing a
# host each count the whole link; an --osd-opt osd_network_bandwidth=... replaces it). Returns
# once every OSD is up in the map. On a running cluster it starts whatever is not running (an OSD
# that was killed). A failed start tears down everything it made.
# status: namespaces, daemons, the bytes each link carried (from the bridge side), `ec-admin -s`.
# stop: SIGTERM to every OSD and etcd (SIGKILL after 30 s), then kills whatever still runs in the
# namespaces and deletes namespaces, veths and the bridge; works after a failed start too. The data
# (DIR/osd.ID, DIR/etcd) is kept: start on the same DIR resumes the same cluster.
# exec: runs CMD in a namespace (kill an OSD, read its /metrics, run ec-rados as a client would).
# fault: drops packets on both ends of HOST's link until `heal` (which prints how many it
# dropped and puts the link's shaping back); RULEs, several allowed: `all` (HOST cut off),
# `peer:HOST2` (nothing between HOST and HOST2), `peer:HOST2:PORT` (nothing to or from HOST2's TCP
# port PORT: peer:etcd:2379 cuts HOST from etcd only), `loss:MASK` (TCP segments sent in about
# 1/(MASK+1) of the milliseconds: loss:7 is ~12%), `rate:RATE` (a slow link). With htb, u32
# and blackhole (bench/netns_hosts.sh impair_link), not netem, which some kernels lack.
#
# RATE is a tc rate (bit, kbit, mbit, gbit); tbf burst is 100 us of RATE, at least 16 KiB (--burst
# BYTES sets it), queue latency 20 ms. DELAY (netem, where the kernel has it) is added on each
# egress, so host-to-host round trips gain 4 x DELAY. --dscp-bands off: one FIFO per link instead
# of sending background (recovery) packets after the others (see shape()).
# TAG is 6 hex digits of the sha1 of DIR's path, so clusters in two DIRs coexist. Defaults: rate
# 1gbit, delay 0ms, 1 OSD per host, 1G device files (sparse), grace 20 s, down-out 600 s.
# --osd-opt KEY=VALUE (repeatable) adds an option to the config's [osd] section, e.g.
# --osd-opt osd_recovery_max_active=16 (names: common/config_values.cc); it is written when
# start makes the config (a start that finds the cluster running keeps the config it has).
# Needs: root, iproute2 (ip netns, tc), /usr/bin/etcd and etcdctl, the build (--bin).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
usage() { sed -n '2,44p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "netns_cluster.sh: $*" >&2; exit 1; }

cmd="${1:-}"
[ -n "$cmd" ] || { usage >&2; exit 1; }
shift
case "$cmd" in -h|--help|help) usage; exit 0 ;; esac
dir="" hosts="" rate=1gbit delay=0ms per_host=1 device_size=1G bin="$root/build/bin" grace=20
down_out=600 burst="" dscp_bands=on exec_host="" exec_argv=() osd_opts=() fault_host="" rules=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:-}"; shift 2 ;;
    --hosts) hosts="${2:-}"; shift 2 ;;
    --rate) rate="${2:-}"; shift 2 ;;
    --delay) delay="${2:-}"; shift 2 ;;
    --burst) burst="${2:-}"; shift 2 ;;
    --dscp-bands) dscp_bands="${2:-}"; shift 2
      [ "$dscp_bands" = on ] || [ "$dscp_bands" = off ] || die "--dscp-bands: on or off" ;;
    --osds-per-host) per_host="${2:-}"; shift 2 ;;
    --device-size) device_size="${2:-}"; shift 2 ;;
    --bin) bin="${2:-}"; shift 2 ;;
    --grace) grace="${2:-}"; shift 2 ;;
    --down-out) down_out="${2:-}"; shift 2 ;;
    --osd-opt)
      [[ "${2:-}" =~ ^[a-z0-9_]+=[^[:space:]].*$ ]] ||
        die "--osd-opt '${2:-}': expected KEY=VALUE, e.g. osd_recovery_max_active=16"
      osd_opts+=("$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
      case "$cmd" in
        exec) exec_host="$1"; shift; exec_argv=("$@"); break ;;
        fault|heal) if [ -z "$fault_host" ]; then fault_host="$1"; else rules+=("$1"); fi; shift ;;
        *) die "unexpected argument '$1' (see --help)" ;;
      esac ;;
  esac
done
[ -n "$dir" ] || die "--dir DIR is required"
[ "$(id -u)" = 0 ] || die "must run as root (network namespaces, veth and tc need CAP_NET_ADMIN)"
command -v ip >/dev/null && command -v tc >/dev/null || die "no ip or tc: install iproute2"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
conf="$dir/ecstore.conf"
state="$dir/netns.env"
tag="$(printf '%s' "$dir" | sha1sum | cut -c1-6)"
ns_prefix="ecn-$tag-"   # namespaces: ecn-TAG-etcd, ecn-TAG-hN
link_prefix="ecn$tag-"  # root-side links (at most 15 characters): ecnTAG-br, ecnTAG-e, ecnTAG-hN
bridge="${link_prefix}br"

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
# The namespaces, links and their shaping: our_namespaces, host_ip, make_network, delete_network.
# shellcheck source=bench/netns_hosts.sh
. "$root/bench/netns_hosts.sh"

# --- stop ------------------------------------------------------------------------------------

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

# Everything is found by name (the tag) and by the pid files, not by what the state file says,
# so a start that died half way is still undone.
do_stop() {
  local f stopping=()
  for f in "$dir"/osd.*.pid; do
    [ -e "$f" ] || continue
    stop_pid "$f" "$(basename "$f" .pid)" &
    stopping+=($!)
  done
  # Only those: a start that failed runs this with etcd (and maybe OSDs) still its children, and
  # a bare `wait` would wait for them forever.
  [ "${#stopping[@]}" -eq 0 ] || wait "${stopping[@]}"
  stop_pid "$dir/etcd.pid" etcd
  # Whatever still runs inside our namespaces (an `exec` left behind) is killed with them.
  delete_network || return 1
  echo "cluster in $dir stopped, namespaces and links deleted (data kept; 'start --dir $dir' resumes it)"
}

# --- daemons ---------------------------------------------------------------------------------

write_state() {
  {
    echo "net=$net"
    echo "hosts=$hosts"
    echo "per_host=$per_host"
    echo "rate=$rate"
    echo "delay=$delay"
    echo "burst=$burst"
    echo "dscp_bands=$dscp_bands"
  } > "$state"
}

write_conf() {
  local h i id
  {
    echo "# An ecstore cluster in network namespaces made by bench/netns_cluster.sh; every program"
    echo "# takes -c $conf. Hosts hN are namespaces ${ns_prefix}hN at $net.(10+N), etcd at $net.2."
    echo "[global]"
    echo "etcd_endpoints = http://$net.2:2379"
    echo "osd_heartbeat_grace = ${grace}s"
    echo "mon_osd_down_out_interval = ${down_out}s"
    echo "[osd]"
    echo "osd_data = $dir/osd.\$id"
    echo "bluestore_block_size = $device_size"
    echo "osd_journal_size = 8"
    echo "log_file = $dir/osd.\$id.log"
    local opt own_bw=""
    for opt in ${osd_opts[@]+"${osd_opts[@]}"}; do
      [ "${opt%%=*}" = osd_network_bandwidth ] && own_bw=1
    done
    # Every host's link runs at --rate: published in the map for osd_repair_pipeline=auto's cost
    # model (an --osd-opt osd_network_bandwidth=... wins). A `fault rate:` is not reflected.
    [ -n "$own_bw" ] || echo "osd_network_bandwidth = $rate"
    for opt in ${osd_opts[@]+"${osd_opts[@]}"}; do echo "${opt%%=*} = ${opt#*=}"; done
    for h in $(seq 1 "$hosts"); do
      for i in $(seq 0 $((per_host - 1))); do
        id=$(((h - 1) * per_host + i))
        echo "[osd.$id]"
        echo "host = h$h"
        echo "public_addr = $(host_ip "$h")"
        echo "osd_port = $((6800 + i))"
        echo "osd_metrics_addr = $(host_ip "$h")"
        echo "osd_metrics_port = $((9283 + i))"
      done
    done
  } > "$conf.tmp"
  mv "$conf.tmp" "$conf"
}

start_etcd() {
  local c="http://$net.2:2379" p="http://$net.2:2380"
  touch "$dir/etcd.log"
  # ip netns exec and setsid both exec (no fork), so $! is etcd's pid.
  ip netns exec "${ns_prefix}etcd" setsid /usr/bin/etcd --name ecstore --data-dir "$dir/etcd" \
    --listen-client-urls "$c" --advertise-client-urls "$c" \
    --listen-peer-urls "$p" --initial-advertise-peer-urls "$p" \
    --initial-cluster "ecstore=$p" --initial-cluster-state new \
    >> "$dir/etcd.log" 2>&1 < /dev/null &
  echo $! > "$dir/etcd.pid"
  for _ in $(seq 1 200); do
    if ETCDCTL_API=3 etcdctl --endpoints "$c" --dial-timeout 1s endpoint health >/dev/null 2>&1; then
      echo "etcd: $c in ${ns_prefix}etcd (data $dir/etcd, log $dir/etcd.log)"
      return 0
    fi
    alive "$dir/etcd.pid" || { tail -n 20 "$dir/etcd.log" >&2; die "etcd did not start"; }
    sleep 0.1
  done
  die "etcd did not become healthy in 20 s from the root namespace (log: $dir/etcd.log)"
}

start_osd() {  # id host
  local id="$1" h="$2"
  if [ ! -e "$dir/osd.$id/block" ]; then
    "$bin/ec-osd" -c "$conf" -i "$id" --mkfs > /dev/null || die "mkfs of osd.$id failed"
  fi
  : > "$dir/osd.$id.out"
  ip netns exec "${ns_prefix}h$h" setsid "$bin/ec-osd" -c "$conf" -i "$id" \
    >> "$dir/osd.$id.out" 2>&1 < /dev/null &
  echo $! > "$dir/osd.$id.pid"
}

on_failed_start() {
  local rc=$?
  [ "$rc" -eq 0 ] && return
  echo "netns_cluster.sh: start failed; tearing down what it made" >&2
  do_stop > /dev/null || true
  exit "$rc"
}

do_start() {
  [ -n "$hosts" ] || { [ -f "$state" ] && hosts="$(sed -n 's/^hosts=//p' "$state")"; } ||
    die "--hosts N is required"
  [[ "$hosts" =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le 64 ] || die "--hosts must be 1..64"
  [[ "$per_host" =~ ^[0-9]+$ ]] && [ "$per_host" -ge 1 ] && [ "$per_host" -le 16 ] ||
    die "--osds-per-host must be 1..16"
  [[ "$grace" =~ ^[0-9]+$ ]] && [ "$grace" -ge 1 ] || die "--grace must be whole seconds >= 1"
  [[ "$down_out" =~ ^[0-9]+$ ]] || die "--down-out must be whole seconds >= 0"
  [[ "$delay" =~ ^[0-9.]+(us|ms|s)$ ]] || die "--delay '$delay': expected e.g. 0ms, 500us, 2ms"
  burst_bytes > /dev/null
  [ -x "$bin/ec-osd" ] || die "no $bin/ec-osd: build first (cmake --build build --target ec-osd)"
  [ -x /usr/bin/etcd ] || die "no /usr/bin/etcd: run scripts/setup.sh"
  command -v etcdctl >/dev/null || die "no etcdctl: run scripts/setup.sh"
  bin="$(cd "$bin" && pwd)"
  net=""
  local id h
  if alive "$dir/etcd.pid" && [ -n "$(our_namespaces)" ]; then
    # Running: keep its network and config; start the OSDs that are not running.
    # shellcheck disable=SC1090
    . "$state"
    echo "etcd: http://$net.2:2379 (running)"
  else
    if [ -n "$(our_namespaces)" ] || ip link show "$bridge" > /dev/null 2>&1; then
      do_stop > /dev/null  # leftovers of a crash
    fi
    if [ -f "$state" ]; then
      # Resume: etcd's data names its peer address, so the subnet must be the same.
      net="$(sed -n 's/^net=//p' "$state")"
      per_host="$(sed -n 's/^per_host=//p' "$state")"
    fi
    trap on_failed_start EXIT
    local hosts_args=()
    for h in $(seq 1 "$hosts"); do hosts_args+=("h$h h$h $((10 + h))"); done
    make_network "etcd e 2" "${hosts_args[@]}"
    write_state
    start_etcd
    write_conf
  fi
  trap on_failed_start EXIT
  for h in $(seq 1 "$hosts"); do
    for id in $(seq $(((h - 1) * per_host)) $((h * per_host - 1))); do
      alive "$dir/osd.$id.pid" || start_osd "$id" "$h"
    done
  done
  # Ready means booted: the OSD prints its ready line after its boot txn put it up in the map.
  local osds=$((hosts * per_host)) deadline=$((SECONDS + 90)) pending
  while :; do
    pending=0
    for id in $(seq 0 $((osds - 1))); do
      grep -q '"event":"ready"' "$dir/osd.$id.out" 2>/dev/null && continue
      pending=1
      if ! alive "$dir/osd.$id.pid"; then
        echo "osd.$id exited:" >&2; tail -n 5 "$dir/osd.$id.out" >&2
        exit 1
      fi
    done
    [ "$pending" -eq 0 ] && break
    [ "$SECONDS" -lt "$deadline" ] || { echo "OSDs not up after 90 s" >&2; exit 1; }
    sleep 0.1
  done
  trap - EXIT
  echo "$osds OSDs up on $hosts hosts h1..h$hosts ($net.11..), links $rate each way, delay $delay"
  echo "config: $conf   (export EC_CONF=$conf, or pass -c; works from the root namespace)"
  echo "client: $0 exec --dir $dir client $bin/ec-rados -c $conf -p POOL ..."
  echo "kill:   kill -9 \$(cat $dir/osd.ID.pid)   logs: $dir/osd.ID.log, $dir/etcd.log"
  if [ -x "$bin/ec-admin" ]; then "$bin/ec-admin" -c "$conf" -s || true; fi
}

# --- status, exec ----------------------------------------------------------------------------

link_bytes() {  # dev -> "to-host from-host" bytes (the bridge side's tx and rx)
  local s="/sys/class/net/$1/statistics"
  [ -d "$s" ] || { echo "- -"; return; }
  echo "$(cat "$s/tx_bytes") $(cat "$s/rx_bytes")"
}

do_status() {
  [ -f "$state" ] || die "no cluster in $dir (no netns.env)"
  # shellcheck disable=SC1090
  . "$state"
  echo "network $net.0/24, $hosts hosts, $per_host OSD(s) per host, links $rate, delay $delay"
  echo "namespaces: $(our_namespaces | tr '\n' ' ')"
  if alive "$dir/etcd.pid"; then echo "etcd: running (pid $(cat "$dir/etcd.pid"))"; else echo "etcd: not running"; fi
  local f h b
  for f in "$dir"/osd.*.pid; do
    [ -e "$f" ] || continue
    if alive "$f"; then echo "$(basename "$f" .pid): running (pid $(cat "$f"))"
    else echo "$(basename "$f" .pid): not running"; fi
  done
  echo "link bytes (to host / from host):"
  b="$(link_bytes "${link_prefix}e")"; echo "  etcd: ${b% *} / ${b#* }"
  for h in $(seq 1 "$hosts"); do
    b="$(link_bytes "${link_prefix}h$h")"; echo "  h$h: ${b% *} / ${b#* }"
  done
  if [ -x "$bin/ec-admin" ] && alive "$dir/etcd.pid"; then "$bin/ec-admin" -c "$conf" -s; fi
}

do_exec() {
  [ -n "$exec_host" ] || die "exec: HOST is required (hN, N, etcd or client)"
  [ "${#exec_argv[@]}" -gt 0 ] || die "exec: no command"
  local h="$exec_host"
  case "$h" in client) h=etcd ;; [0-9]*) h="h$h" ;; esac
  ip netns list | awk '{print $1}' | grep -qx "$ns_prefix$h" ||
    die "exec: no namespace $ns_prefix$h (is the cluster in $dir started?)"
  exec ip netns exec "$ns_prefix$h" "${exec_argv[@]}"
}

# --- fault, heal ----------------------------------------------------------------------------

# HOST (hN, N, etcd or client) -> "namespace-suffix link-suffix address".
host_link() {
  local h="$1"
  case "$h" in client|etcd) echo "etcd e $net.2"; return ;; [0-9]*) h="h$h" ;; esac
  [[ "$h" =~ ^h([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[1]}" -le "$hosts" ] ||
    die "no host '$1' (h1..h$hosts, etcd)"
  echo "$h $h $(host_ip "${BASH_REMATCH[1]}")"
}

do_fault() {
  [ -f "$state" ] && [ -n "$(our_namespaces)" ] || die "$cmd: no cluster running in $dir"
  # shellcheck disable=SC1090
  . "$state"
  [ -n "$fault_host" ] || die "$cmd: HOST is required (hN or etcd)"
  local ns link addr rule out=() peer hl
  hl="$(host_link "$fault_host")"
  read -r ns link addr <<< "$hl"
  if [ "$cmd" = heal ]; then
    [ "${#rules[@]}" -eq 0 ] || die "heal: unexpected argument '${rules[0]}'"
    local counts
    counts="$(impaired_drops "$ns" "$link")"
    echo "$fault_host: ${counts% *} packets dropped, ${counts#* } sent; link healed"
    heal_link "$ns" "$link"
    return
  fi
  [ "${#rules[@]}" -gt 0 ] || die "fault: no RULE (all, peer:HOST, peer:HOST:PORT, loss:MASK, rate:RATE)"
  for rule in "${rules[@]}"; do
    case "$rule" in
      all) out+=(all) ;;
      peer:*)
        peer="${rule#peer:}"
        local p_addr port=""
        if [[ "$peer" == *:* ]]; then
          port="${peer#*:}"; peer="${peer%%:*}"
          [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] ||
            die "fault: bad port in '$rule'"
        fi
        hl="$(host_link "$peer")"
        read -r _ _ p_addr <<< "$hl"
        [ "$p_addr" != "$addr" ] || die "fault: '$rule' names the host itself"
        out+=("peer:$p_addr${port:+:$port}") ;;
      loss:*) [[ "${rule#loss:}" =~ ^(1|3|7|15|31|63|127|255)$ ]] ||
          die "fault: '$rule': MASK is 1, 3, 7, 15, 31, 63, 127 or 255"
        out+=("$rule") ;;
      rate:*) [[ "${rule#rate:}" =~ ^[0-9]+(bit|kbit|mbit|gbit)$ ]] ||
          die "fault: '$rule': expected e.g. rate:4mbit"
        out+=("$rule") ;;
      *) die "fault: unknown rule '$rule' (all, peer:HOST, peer:HOST:PORT, loss:MASK, rate:RATE)" ;;
    esac
  done
  impair_link "$ns" "$link" "${out[@]}"
  echo "$fault_host: ${rules[*]}"
}

case "$cmd" in
  start) do_start ;;
  fault|heal) do_fault ;;
  status) do_status ;;
  stop) do_stop ;;
  exec) do_exec ;;
  *) die "unknown command '$cmd': start, status, stop, exec, fault or heal (see --help)" ;;
esac
