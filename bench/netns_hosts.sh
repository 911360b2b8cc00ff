# shellcheck shell=bash
# shellcheck disable=SC2154  # the caller's variables, below
# Sourced (not a program) by bench/netns_cluster.sh, tests/cluster/deploy_guide_test.sh and
# tests/cluster/partition_test.sh: hosts that are network namespaces, each joined by a veth pair
# to a bridge in the root namespace, with an address in a private 10.213.X.0/24, and tc tbf at
# RATE on both ends of every link (under netem when DELAY is not zero; pfifo_fast bands under the
# tbf with DSCP bands on); faults on a host's link (impair_link, heal_link).
#
# The caller sets, before calling anything here:
#   tag          6 hex digits naming its cluster (namespaces and links of two tags coexist)
#   ns_prefix    namespaces: ${ns_prefix}NAME          (ecn-TAG-)
#   link_prefix  root-side links: ${link_prefix}LINK    (ecnTAG-; LINK at most 4 characters, as
#                the temporary name ${link_prefix}xLINK must fit the kernel's 15)
#   bridge       the bridge's name (${link_prefix}br)
#   rate delay burst dscp_bands   the links' shaping (burst may be empty: 100 us of RATE)
#   net          the subnet's first three octets, or empty for make_network to pick one
# and defines die. Needs root and iproute2 (ip netns, tc).

our_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep "^$ns_prefix" || true; }
host_ip() { echo "$net.$((10 + $1))"; }  # host number (1..) -> address

# RATE -> tbf burst in bytes: --burst, else 100 us of traffic, at least 16 KiB. A larger bucket
# lets an idle link send a burst above RATE (a 96 KiB reply crossed a 1gbit link with a 125000-byte
# burst at 2.6 Gbit/s), which no real NIC does.
burst_bytes() {
  if [ -n "$burst" ]; then
    [[ "$burst" =~ ^[0-9]+$ ]] && [ "$burst" -ge 2048 ] || die "--burst must be bytes >= 2048"
    echo "$burst"; return
  fi
  [[ "$rate" =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] || die "--rate '$rate': expected e.g. 1gbit, 500mbit"
  local n="${BASH_REMATCH[1]}" mult
  case "${BASH_REMATCH[2]}" in bit) mult=1 ;; kbit) mult=1000 ;; mbit) mult=1000000 ;;
    gbit) mult=1000000000 ;; esac
  local b=$((n * mult / 8 / 10000))
  [ "$b" -ge 16384 ] || b=16384
  echo "$b"
}

# Egress shaping of one device: tbf at RATE, under netem when DELAY is not zero. With DSCP bands
# on (the default), the tbf's queue is a pfifo_fast qdisc, whose three bands go strictly in order
# by the packet's socket priority: background connections (recovery, msg/traffic_class.h:
# DSCP CS1 and socket priority 1) wait in the last band, so the tbf sends every other packet
# first, as a switch port with a strict-priority queue for CS1 would. (pfifo_fast rather than a
# prio qdisc with a DSCP filter: some kernels, this project's CI VMs among them, lack sch_prio.)
# NSARGS: "" for the root namespace or "-n NS".
shape() {  # nsargs dev
  local nsargs="$1" dev="$2" bucket tbf_handle=1
  bucket="$(burst_bytes)"
  # shellcheck disable=SC2086
  if [[ "$delay" =~ ^0+(\.0*)?(ms|us|s)$ ]]; then
    tc $nsargs qdisc replace dev "$dev" root handle 1: tbf rate "$rate" burst "$bucket" latency 20ms
  else
    tc $nsargs qdisc replace dev "$dev" root handle 1: netem delay "$delay" limit 100000
    tc $nsargs qdisc replace dev "$dev" parent 1:1 handle 10: tbf rate "$rate" burst "$bucket" \
      latency 20ms
    tbf_handle=10
  fi
  if [ "$dscp_bands" = on ]; then
    # shellcheck disable=SC2086
    tc $nsargs qdisc replace dev "$dev" parent "$tbf_handle:1" handle 20: pfifo_fast
  fi
}

# Faults on one host's link, on both of its ends, with what kernels without sch_netem have too
# (this project's machine lacks it): each end's root becomes an htb whose default class 1:1 passes
# at RATE and whose class 1:2 ends in a blackhole qdisc; u32 filters send chosen packets to 1:2.
# RULEs (several may be given):
#   all          every packet: the host is cut off from every other
#   peer:ADDR    packets between the host and ADDR (dst ADDR leaving the host, src ADDR reaching it)
#   peer:ADDR:PORT   ... of ADDR's TCP port PORT only (the host's etcd client traffic: etcd's 2379)
#   loss:MASK    TCP segments whose timestamp (TSval, milliseconds) has bits MASK all zero: a
#                loss of about 1/(MASK+1) of the milliseconds in which a segment is sent, on
#                each end; a retransmission carries a new timestamp, so it gets through as often
#   rate:RATE    the default class at RATE instead of the link's (a slow link)
# heal_link puts the link's shaping back. Needs sch_htb, sch_blackhole and cls_u32.
impair_end() {  # nsargs dev side(host|bridge) rule...
  local nsargs="$1" dev="$2" side="$3" r="$rate" rule addr port dir pdir default=1
  shift 3
  for rule in "$@"; do
    case "$rule" in rate:*) r="${rule#rate:}" ;; all) default=2 ;; esac
  done
  if [ "$side" = host ]; then dir=dst pdir=dport; else dir=src pdir=sport; fi
  # shellcheck disable=SC2086
  {
    tc $nsargs qdisc del dev "$dev" root 2>/dev/null || true
    # `all`: the default is the blackhole from the start (no packet slips by before a filter).
    tc $nsargs qdisc add dev "$dev" root handle 1: htb default "$default"
    tc $nsargs class add dev "$dev" parent 1: classid 1:1 htb rate "$r" quantum 60000
    tc $nsargs class add dev "$dev" parent 1: classid 1:2 htb rate "$rate" quantum 60000
    tc $nsargs qdisc add dev "$dev" parent 1:2 handle 12: blackhole
    for rule in "$@"; do
      local m=()
      case "$rule" in
        all) continue ;;
        peer:*:*) addr="${rule#peer:}"; port="${addr#*:}"; addr="${addr%%:*}"
          m=(match ip "$dir" "$addr/32" match ip protocol 6 0xff match ip "$pdir" "$port" 0xffff) ;;
        peer:*) m=(match ip "$dir" "${rule#peer:}/32") ;;
        # TCP, a 32-byte header (doff 8) opening with NOP NOP TIMESTAMP(10): TSval at 44 when the
        # IP header has no options (ours never do).
        loss:*) m=(match ip protocol 6 0xff match u8 0x80 0xf0 at 32
                   match u32 0x0101080a 0xffffffff at 40 match u8 0 "${rule#loss:}" at 47) ;;
        rate:*) continue ;;
        *) die "impair_link: unknown rule '$rule'" ;;
      esac
      tc $nsargs filter add dev "$dev" parent 1: protocol ip prio 1 u32 "${m[@]}" flowid 1:2
    done
  } || die "impair_link: tc failed on $dev (a kernel without sch_htb, sch_blackhole or cls_u32?)"
}

impair_link() {  # ns-suffix link-suffix rule...
  local ns="$ns_prefix$1" peer="$link_prefix$2"
  shift 2
  impair_end "-n $ns" eth0 host "$@"
  impair_end "" "$peer" bridge "$@"
}

# "DROPPED SENT": the packets the faults of impair_link dropped on both ends of the link
# (blackhole's counter) and those they let through.
impaired_drops() {  # ns-suffix link-suffix
  local dropped=0 sent=0 out c
  for out in "$(tc -n "$ns_prefix$1" -s class show dev eth0 2>/dev/null)" \
             "$(tc -s class show dev "$link_prefix$2" 2>/dev/null)"; do
    c="$(awk '/^class htb 1:2 /{b=1} /^class htb 1:1 /{b=0}
              /Sent/ { gsub(/[(),]/, " "); if (b) d += $7; else s += $4 } END { print d + 0, s + 0 }' \
         <<< "$out")"
    dropped=$((dropped + ${c% *})) sent=$((sent + ${c#* }))
  done
  echo "$dropped $sent"
}

heal_link() {  # ns-suffix link-suffix
  local ns="$ns_prefix$1" peer="$link_prefix$2"
  tc -n "$ns" qdisc del dev eth0 root 2>/dev/null || true
  tc qdisc del dev "$peer" root 2>/dev/null || true
  shape "-n $ns" eth0
  shape "" "$peer"
}

# A namespace NAME with address ADDR on eth0, its peer LINK on the bridge, both ends shaped. Also
# for a host added to a running network.
add_host() {  # ns-suffix link-suffix addr
  local ns="$ns_prefix$1" peer="$link_prefix$2" tmp="${link_prefix}x$2"
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip link add "$peer" type veth peer name "$tmp"
  ip link set "$tmp" netns "$ns"
  ip -n "$ns" link set "$tmp" name eth0
  ip -n "$ns" addr add "$3/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" route add default via "$net.1"
  ip link set "$peer" master "$bridge"
  ip link set "$peer" up
  shape "-n $ns" eth0
  shape "" "$peer"
}

# The first 10.213.X.0/24 (X from a hash of the tag on) that no address or route of the root
# namespace uses. Called under a lock so two starts do not pick the same X.
pick_net() {
  local start=$((16#${tag:0:2})) i x used
  used="$(ip -4 -o addr show; ip -4 route show)"
  for i in $(seq 0 255); do
    x=$(((start + i) % 256))
    if ! grep -q "10\.213\.$x\." <<< "$used"; then echo "10.213.$x"; return; fi
  done
  die "no free 10.213.X.0/24 subnet"
}

# The bridge at $net.1 (the subnet picked when net is empty) and one host per "NAME LINK ADDR"
# argument, after a probe namespace has shown that this kernel has what the links need (network
# namespaces, tbf, netem for DELAY, pfifo_fast for DSCP bands): a clear error otherwise.
make_network() {  # "NAME LINK ADDR-LAST-OCTET"...
  exec 9> /run/ecn-netns.lock
  flock 9
  if [ -z "${net:-}" ]; then net="$(pick_net)"; fi
  if ip -4 -o addr show | grep -q "inet $net\.1/"; then
    die "$net.0/24 is in use by another link; stop that cluster${state:+ or remove $state}"
  fi
  local probe="${ns_prefix}probe"
  ip netns add "$probe" 2>/dev/null || die "'ip netns add' failed: no network namespaces here?"
  ip -n "$probe" link set lo up
  tc -n "$probe" qdisc add dev lo root handle 1: tbf rate "$rate" burst "$(burst_bytes)" latency 20ms 2>/dev/null ||
    { ip netns delete "$probe"; die "tc cannot add a tbf qdisc (kernel without sch_tbf?)"; }
  if ! [[ "$delay" =~ ^0+(\.0*)?(ms|us|s)$ ]]; then
    tc -n "$probe" qdisc replace dev lo root netem delay "$delay" 2>/dev/null ||
      { ip netns delete "$probe"; die "--delay needs tc's netem qdisc, which this kernel lacks (sch_netem)"; }
  fi
  if [ "$dscp_bands" = on ]; then
    tc -n "$probe" qdisc replace dev lo parent 1:1 handle 20: pfifo_fast 2>/dev/null ||
      { ip netns delete "$probe"; die "--dscp-bands on needs a pfifo_fast qdisc under the tbf; use --dscp-bands off"; }
  fi
  ip netns delete "$probe"
  ip link add "$bridge" type bridge
  ip addr add "$net.1/24" dev "$bridge"
  ip link set "$bridge" up
  local h name link octet
  for h in "$@"; do
    read -r name link octet <<< "$h"
    add_host "$name" "$link" "$net.$octet"
  done
  exec 9>&-
}

# Kills whatever still runs in namespace NAME and deletes it (its veth pair goes with it).
delete_host() {  # ns-suffix
  local ns="$ns_prefix$1" pid
  for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 50); do [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break; sleep 0.1; done
  ip netns delete "$ns" 2>/dev/null || echo "could not delete namespace $ns" >&2
}

# Every namespace and link of the tag, found by name (not by what the caller recorded, so a start
# that died half way is undone too). Returns 1, naming them, if some are left.
delete_network() {
  local ns l left
  for ns in $(our_namespaces); do delete_host "${ns#"$ns_prefix"}"; done
  # Deleting a namespace deletes its veth ends and so their peers; the bridge and any veth that
  # never made it into a namespace go here.
  for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 |
             grep "^$link_prefix" || true); do
    ip link delete "$l" 2>/dev/null || true
  done
  left="$(our_namespaces; ip -o link show | awk -F': ' '{print $2}' | grep "^$link_prefix" || true)"
  [ -z "$left" ] || { echo "left behind: $left" >&2; return 1; }
}
