#!/usr/bin/env bash
# One host's ecstore config from the templates beside this script (docs/deploy.md): its
# ecstore.conf (ecstore.conf.in) and, when the host runs an etcd member, its etcd.env
# (etcd.env.in). Only the names and addresses are filled in; everything else is the templates'.
#
#   deploy/render.sh --host NAME --addr ADDR --etcd NAME=ADDR[,NAME=ADDR...]
#                    [--etcd-state new|existing] [--out DIR]
#
#   --host NAME     this host: its name in the map (the OSDs' `host`) and its etcd member's name
#   --addr ADDR     this host's address (IPv4 or IPv6 literal) on the network the hosts share
#   --etcd LIST     every etcd member, NAME=ADDR comma-separated (three or five; the same list on
#                   every host): ecstore.conf's etcd_endpoints, and etcd.env's initial cluster
#   --etcd-state S  new (default): the members start a new etcd together; existing: this host's
#                   member joins a running etcd (after `etcdctl member add NAME --peer-urls ...`)
#   --out DIR       where the files go (default /etc/ecstore); made if missing
#
# Writes DIR/ecstore.conf, and DIR/etcd.env if NAME is one of --etcd's members (a host that is
# not keeps any etcd.env it has). Bad arguments: a message and exit 1, nothing written.
# Example, on the first of three hosts:
#   deploy/render.sh --host node1 --addr 192.0.2.11 \
#     --etcd node1=192.0.2.11,node2=192.0.2.12,node3=192.0.2.13
set -euo pipefail

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "render.sh: $*" >&2; exit 1; }

host="" addr="" etcd="" state=new out=/etc/ecstore
templates="$(cd "$(dirname "$0")" && pwd)"
while [ $# -gt 0 ]; do
  case "$1" in
    --host) host="${2:-}"; shift 2 || die "--host needs a NAME" ;;
    --addr) addr="${2:-}"; shift 2 || die "--addr needs an ADDR" ;;
    --etcd) etcd="${2:-}"; shift 2 || die "--etcd needs NAME=ADDR,..." ;;
    --etcd-state) state="${2:-}"; shift 2 || die "--etcd-state needs new or existing" ;;
    --out) out="${2:-}"; shift 2 || die "--out needs a DIR" ;;
    -h|--help) usage; exit 0 ;;
    *) die "unexpected argument '$1' (see --help)" ;;
  esac
done

# A host name as DNS has them (RFC 1123 labels): the map's host and etcd's member name.
valid_name() { [[ "$1" =~ ^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$ ]]; }
valid_addr() {
  local a="$1" o
  if [[ "$a" =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]]; then
    for o in "${BASH_REMATCH[@]:1}"; do [ "$((10#$o))" -le 255 ] || return 1; done
    return 0
  fi
  [[ "$a" == *:* && "$a" =~ ^[0-9A-Fa-f:.]+$ && ${#a} -le 45 ]]
}
url_host() { if [[ "$1" == *:* ]]; then echo "[$1]"; else echo "$1"; fi; }

[ -n "$host" ] || die "--host NAME is required (see --help)"
[ -n "$addr" ] || die "--addr ADDR is required"
[ -n "$etcd" ] || die "--etcd NAME=ADDR,... is required (every etcd member)"
valid_name "$host" || die "--host '$host': not a host name (letters, digits, '-', '.')"
valid_addr "$addr" || die "--addr '$addr': not an IPv4 or IPv6 address"
[ "$state" = new ] || [ "$state" = existing ] || die "--etcd-state '$state': new or existing"
[ "$addr" != 0.0.0.0 ] && [ "$addr" != :: ] ||
  die "--addr $addr: the other hosts must reach this one there; give its own address"

endpoints="" initial="" member=0
declare -A seen=()
IFS=, read -r -a members <<< "$etcd"
for m in "${members[@]}"; do
  [[ "$m" == *=* ]] || die "--etcd: '$m' is not NAME=ADDR"
  name="${m%%=*}" maddr="${m#*=}"
  valid_name "$name" || die "--etcd: '$name' is not a host name"
  valid_addr "$maddr" || die "--etcd: $name's address '$maddr' is not an IPv4 or IPv6 address"
  [ -z "${seen[$name]:-}" ] || die "--etcd: $name is named twice"
  seen[$name]=1
  endpoints+="${endpoints:+,}http://$(url_host "$maddr"):2379"
  initial+="${initial:+,}$name=http://$(url_host "$maddr"):2380"
  if [ "$name" = "$host" ]; then
    [ "$maddr" = "$addr" ] || die "--etcd gives $host the address $maddr, --addr $addr"
    member=1
  fi
done
[ "${#members[@]}" -ge 1 ] || die "--etcd names no member"
[ "$member" = 1 ] || [ "$state" = new ] || die "--etcd-state $state: $host is not in --etcd"
for t in ecstore.conf.in etcd.env.in; do
  [ -f "$templates/$t" ] || die "no template $templates/$t"
done

# Names and addresses hold no character special to sed's replacement ('|', '&', '\'), checked above.
render() {  # template output
  sed -e "s|@HOST@|$host|g" -e "s|@ADDR@|$addr|g" -e "s|@ADDR_URL@|$(url_host "$addr")|g" \
      -e "s|@ETCD_ENDPOINTS@|$endpoints|g" -e "s|@ETCD_INITIAL_CLUSTER@|$initial|g" \
      -e "s|@ETCD_STATE@|$state|g" "$templates/$1" > "$2.tmp"
  ! grep -n '@[A-Z_]*@' "$2.tmp" >&2 || { rm -f "$2.tmp"; die "$1: a placeholder left unfilled"; }
  chmod 0644 "$2.tmp"
  mv "$2.tmp" "$2"
  echo "wrote $2"
}
mkdir -p "$out" || die "cannot make $out"
render ecstore.conf.in "$out/ecstore.conf"
if [ "$member" = 1 ]; then
  render etcd.env.in "$out/etcd.env"
else
  echo "$host runs no etcd member: no etcd.env"
fi
