#!/usr/bin/env bash
# The main job on its embedded default: installs what is needed, builds, then walks through
# ec-tool on a few profiles: encode a file, lose shards, decode from what is left, check the
# bytes, and (for CLAY) repair a lost shard from the planned sub-chunks, printing what was read.
# Then a local cluster on loopback (scripts/cluster.sh): etcd and seven ec-osd daemons on seven
# simulated hosts, each on a 256 MiB file standing in for an NVMe device. ec-admin sets a CLAY and
# an RS profile and creates two erasure pools and a replicated pool of 3 copies beside them (each
# copy the whole object, a lost copy pulled from one other); the six shards of a CLAY object go
# to the OSDs that
# placement gives its PG; one OSD is killed (down within the grace, out after the interval, its
# position remapped), the object is read back degraded, the lost shard is rebuilt onto the OSD now
# in its position, the killed OSD comes back up, and the daemons' metrics and status are shown.
# The cluster runs with authentication (cephx keys made at start, every connection authenticated
# and every frame signed: scripts/cluster.sh --auth); --auth none runs it without, for benchmarks.
# Usage: scripts/run.sh [--auth cephx|none] [WORKDIR]   (WORKDIR default: a fresh directory under
# /tmp, removed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
auth=cephx
if [ "${1:-}" = --auth ]; then
  case "${2:-}" in cephx|none) auth="$2" ;; *) echo "run.sh: --auth takes cephx or none" >&2; exit 1 ;; esac
  shift 2
fi

scripts/setup.sh
scripts/build.sh release

tool="$root/build/bin/ec-tool"
work="${1:-}"
cleanup=0
if [ -z "$work" ]; then
  work="$(mktemp -d /tmp/ecstore-walkthrough.XXXXXX)"
  cleanup=1
fi
mkdir -p "$work"
[ "$cleanup" -eq 1 ] && trap 'rm -rf "$work"' EXIT

object="$work/object"
head -c 1048576 /dev/urandom > "$object"
echo "== object: $object ($(stat -c %s "$object") bytes)"

walk() {
  local profile="$1" su="$2" lost="$3"
  echo
  echo "== profile: $profile   stripe unit: $su"
  "$tool" validate-profile "$profile"
  local n; n="$("$tool" validate-profile "$profile" chunk_count)"
  local k; k="$("$tool" validate-profile "$profile" data_chunk_count)"
  local dir="$work/$(echo "$profile" | tr ',=' '__')"
  mkdir -p "$dir"
  cp "$object" "$dir/obj"
  local all; all="$(seq -s, 0 $((n - 1)))"
  "$tool" encode "$profile" "$su" "$all" "$dir/obj"
  echo "encoded into $n shards of $(stat -c %s "$dir/obj.0") bytes each"
  mv "$dir/obj" "$dir/obj.orig"
  # Lose the listed shards, decode from the survivors.
  local avail=""
  for i in $(seq 0 $((n - 1))); do
    if [[ ",$lost," == *",$i,"* ]]; then rm -f "$dir/obj.$i"; else avail="$avail${avail:+,}$i"; fi
  done
  echo "lost shards {$lost}; decoding from {$avail}"
  "$tool" decode "$profile" "$su" "$avail" "$dir/obj"
  if cmp -s -n "$(stat -c %s "$dir/obj.orig")" "$dir/obj" "$dir/obj.orig"; then
    echo "decoded object matches the original ($k of $n shards were enough)"
  else
    echo "MISMATCH after decode" >&2
    exit 1
  fi
}

# Repair one lost shard and show what it cost to read: RS reads k whole chunks, CLAY reads d
# helpers x 1/q of each chunk (q = d-k+1).
repair() {
  local profile="$1" su="$2" lost="$3"
  local dir="$work/repair_$(echo "$profile" | tr ',=' '__')"
  mkdir -p "$dir"
  cp "$object" "$dir/obj"
  local n; n="$("$tool" validate-profile "$profile" chunk_count)"
  "$tool" encode "$profile" "$su" "$(seq -s, 0 $((n - 1)))" "$dir/obj"
  mv "$dir/obj.$lost" "$dir/lost.orig"
  echo
  echo "== repair of shard $lost with $profile (shard files of $(stat -c %s "$dir/obj.0") bytes)"
  "$tool" repair "$profile" "$su" "$lost" "$dir/obj"
  if cmp -s "$dir/obj.$lost" "$dir/lost.orig"; then
    echo "rebuilt shard $lost is identical to the lost one"
  else
    echo "MISMATCH after repair" >&2
    exit 1
  fi
}

walk "plugin=jerasure,technique=reed_sol_van,k=4,m=2" 4096 "0,5"
walk "plugin=isa,technique=cauchy,k=6,m=3" 4096 "1,2,7"
walk "plugin=jerasure,technique=cauchy_good,k=4,m=2,packetsize=32" 4096 "3"
walk "plugin=clay,k=4,m=2,d=5" 4096 "1,4"
repair "plugin=jerasure,technique=reed_sol_van,k=4,m=2" 4096 1
repair "plugin=clay,k=4,m=2,d=5" 4096 1
repair "plugin=isa,technique=reed_sol_van,k=10,m=4" 8192 3
repair "plugin=clay,k=10,m=4,d=13" 8192 3
echo
echo "== walk-through finished (bytes_read above: what each code read to rebuild one shard)"

# ---- a local cluster on loopback -------------------------------------------------------------
cl="$work/cluster"
grace=4
down_out=8
stop_cluster() { scripts/cluster.sh stop --dir "$cl" >/dev/null 2>&1 || true; }
trap 'stop_cluster; [ "$cleanup" -eq 1 ] && rm -rf "$work"' EXIT

echo
echo "== local cluster: etcd and seven ec-osd daemons on seven hosts (scripts/cluster.sh)"
scripts/cluster.sh start --dir "$cl" --osds 7 --hosts 7 --grace "$grace" --down-out "$down_out" \
  --auth "$auth"
# ec-osd-client sends shard operations, which an OSD with cephx takes from OSDs only.
osd_client_auth=()
if [ "$auth" = cephx ]; then osd_client_auth=(--keyring "$cl/osd.0.keyring" --name osd.0); fi
export EC_CONF="$cl/ecstore.conf"
admin() { echo "\$ ec-admin $*"; "$root/build/bin/ec-admin" "$@"; }
admin osd erasure-code-profile set clay42 plugin=clay k=4 m=2 d=5 crush-failure-domain=host
admin osd erasure-code-profile set rs42 plugin=jerasure technique=reed_sol_van k=4 m=2 \
  crush-failure-domain=host
admin osd erasure-code-profile get clay42
admin osd pool create claypool 32 32 erasure clay42
admin osd pool create rspool 32 32 erasure rs42
admin osd pool create reppool 32 32 replicated      # 3 copies, min_size 2 (Ceph's defaults)
admin osd pool get reppool all
admin osd pool ls detail
admin osd tree
admin -s

# The acting set of the object's PG, as a list of OSD ids (shard i on the i-th).
acting() {
  "$root/build/bin/ec-admin" osd map claypool obj --format json |
    sed -E 's/.*"acting":\[([^]]*)\].*/\1/' | tr ',' ' '
}
osd_addr() {  # id -> host:port from its ready line
  local line; line="$(grep -m1 '"event":"ready"' "$cl/osd.$1.out")"
  echo "$(echo "$line" | sed -E 's/.*"addr":"([^"]+)".*/\1/'):$(echo "$line" | sed -E 's/.*"port":([0-9]+).*/\1/')"
}
osd_mport() { grep -m1 '"event":"ready"' "$cl/osd.$1.out" | sed -E 's/.*"metrics_port":([0-9]+).*/\1/'; }
http_get() {  # port path: the body of an HTTP GET on loopback (bash's /dev/tcp, no curl needed)
  exec 3<>"/dev/tcp/127.0.0.1/$1"
  printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$2" >&3
  sed '1,/^\r$/d' <&3
  exec 3<&-
}
# Polls `ec-admin -s` every second until every PG is active+clean (or LIMIT seconds), printing
# its PG and recovery lines as they change.
watch_recovery() {
  local limit="$1" t0 last="" out
  t0="$(date +%s)"
  sleep 1  # the primaries report within 100 ms of a new epoch; their PGs peer first
  while :; do
    out="$("$root/build/bin/ec-admin" -s 2>&1 |
      grep -E 'pgs:|active|peering|down|incomplete|degraded|misplaced|recover|backfill|\[' || true)"
    if [ "$out" != "$last" ]; then
      echo "[$(( $(date +%s) - t0 )) s]"; echo "$out"; last="$out"
    fi
    if "$root/build/bin/ec-admin" -s --format json | grep -q '"pgs_by_state":\[{"count":[0-9]*,"state_name":"active+clean"}\]'; then
      echo "every PG active+clean after $(( $(date +%s) - t0 )) s"; return 0
    fi
    if [ $(( $(date +%s) - t0 )) -ge "$limit" ]; then
      echo "not every PG is active+clean after $limit s" >&2; return 1
    fi
    sleep 1
  done
}
# The recovery counters of every running OSD summed by pool and kind.
recovery_bytes() {
  local id
  for id in $(seq 0 6); do
    kill -0 "$(cat "$cl/osd.$id.pid" 2>/dev/null)" 2>/dev/null || continue
    http_get "$(osd_mport "$id")" /metrics 2>/dev/null |
      grep -E '^ecstore_recovery_(network_bytes|helper_device_bytes|rebuilt_bytes)_total' || true
  done | awk '{ sub(/_total/, "", $1); sum[$1] += $2 }
              END { for (k in sum) printf "  %-60s %d\n", k, sum[k] }' | sort
}
map_field() {  # osd id, field: 1/0 from the map (ec-admin osd dump, Ceph's "up"/"in")
  "$root/build/bin/ec-admin" osd dump --format json |
    grep -o "{[^{}]*\"osd\":$1[,}][^{}]*}" | grep -o "\"$2\":[a-z0-9]*" | head -n 1 | cut -d: -f2
}

rados() { echo "\$ ec-rados $*"; "$root/build/bin/ec-rados" "$@"; }
echo
echo "== objects through pools (ec-rados, the client library): each PG's primary encodes them"
admin osd map claypool obj
read -r -a set <<< "$(acting)"
for p in claypool rspool reppool; do
  rados -p "$p" put obj "$object"
  for n in 1 2 3 4 5; do
    head -c $((n * 37000)) "$object" > "$cl/small.$n"
    "$root/build/bin/ec-rados" -p "$p" put "small-$n" "$cl/small.$n"
  done
done
rados -p claypool ls
rados -p claypool stat obj
echo
echo "== Fast EC (allow_ec_optimizations, what new pools get): a 4 KiB object in rspool stores only"
echo "   what its data reaches: its data chunk and two parity chunks (padded: 6 x 4 KiB)"
# One line per shard of pool $1's object $2: "<shard> <osd> <field $3 of ec-osd-client stat>".
shard_stats() {
  local map pg acting i
  map="$("$root/build/bin/ec-admin" osd map "$1" "$2" --format json)"
  pg="$(echo "$map" | sed -E 's/.*"pgid":"([^"]+)".*/\1/')"
  read -r -a acting <<< "$(echo "$map" | sed -E 's/.*"acting":\[([^]]*)\].*/\1/' | tr ',' ' ')"
  for i in "${!acting[@]}"; do
    echo "$i ${acting[$i]} $("$root/build/bin/ec-osd-client" "${osd_client_auth[@]}" \
      --osd "$(osd_addr "${acting[$i]}")" stat "pg.$pg" "$2" "$i" | sed -E "s/.*\"$3\":([0-9]+).*/\\1/")"
  done
}
head -c 4096 "$object" > "$cl/tiny"
rados -p rspool put tiny "$cl/tiny"
tiny_total=0
while read -r i osd size; do
  echo "  shard $i on osd.$osd: $size bytes"
  tiny_total=$((tiny_total + size))
done < <(shard_stats rspool tiny size)
echo "  $tiny_total bytes of shards for a 4096-byte object"
echo "== partial writes: a 4 KiB overwrite inside a 64 KiB object goes to the data shard it changes"
echo "   and the two parity shards; the other three keep their version"
head -c 65536 "$object" > "$cl/part"
rados -p rspool put part "$cl/part"
mapfile -t part_before < <(shard_stats rspool part version)
head -c 4096 /dev/urandom > "$cl/patch"
rados -p rspool put part "$cl/patch" --offset 20480
mapfile -t part_after < <(shard_stats rspool part version)
part_changed=0
for i in "${!part_before[@]}"; do
  read -r _ osd before <<< "${part_before[$i]}"
  read -r _ _ after <<< "${part_after[$i]}"
  if [ "$before" != "$after" ]; then
    echo "  shard $i on osd.$osd: version $before -> $after"
    part_changed=$((part_changed + 1))
  else
    echo "  shard $i on osd.$osd: version $before (not written)"
  fi
done
echo "  $part_changed of ${#part_before[@]} shards written by the overwrite"
echo "== replicated pool: each of reppool/obj's three copies holds the whole object (no padding, no"
echo "   parity); a lost copy is pulled from ONE other copy"
rep_size="$(stat -c %s "$object")"
while read -r i osd size; do
  echo "  copy $i on osd.$osd: $size bytes"
  [ "$size" = "$rep_size" ] || { echo "copy $i of reppool/obj has $size bytes, not $rep_size" >&2; exit 1; }
done < <(shard_stats reppool obj size)
rados -p claypool bench 3 write -b 4096 -t 4 --no-cleanup --run-name demo
echo "the six shards of claypool/obj are on osd.${set[0]},${set[1]},${set[2]},${set[3]},${set[4]},${set[5]}"
victim="${set[1]}"
echo
echo "kill -9 osd.$victim (it holds shard 1 of obj): down within the grace (${grace} s)"
start_ms=$(date +%s%3N)
kill -KILL "$(cat "$cl/osd.$victim.pid")"
until [ "$(map_field "$victim" up)" = "0" ]; do sleep 0.1; done
echo "osd.$victim is down in the map after $(( $(date +%s%3N) - start_ms )) ms"
echo "\$ ec-admin health detail   (first lines)"
"$root/build/bin/ec-admin" health detail > "$cl/health.txt" || true
head -n 6 "$cl/health.txt"
echo
echo "== degraded reads: every object read back while osd.$victim is down"
for p in claypool rspool reppool; do
  "$root/build/bin/ec-rados" -p "$p" get obj "$cl/read.obj"
  cmp -s "$cl/read.obj" "$object" || { echo "MISMATCH in $p/obj" >&2; exit 1; }
  for n in 1 2 3 4 5; do
    "$root/build/bin/ec-rados" -p "$p" get "small-$n" "$cl/read.small"
    cmp -s "$cl/read.small" "$cl/small.$n" || { echo "MISMATCH in $p/small-$n" >&2; exit 1; }
  done
  echo "$p: obj and small-1..5 read back identical to what was written"
done
echo "4 KiB random reads of claypool's bench objects (degraded where osd.$victim held a data shard):"
rados -p claypool bench 3 rand -b 4096 -t 4 --run-name demo
echo "-- the primaries' degraded-read counters (network and device bytes, by pool):"
for id in "${set[@]}"; do
  [ "$id" = "$victim" ] && continue
  http_get "$(osd_mport "$id")" /metrics | { grep -E '^ecstore_pool_degraded_read' || true; } |
    sed "s/^/osd.$id /"
done
until [ "$(map_field "$victim" in)" = "0" ]; do sleep 0.2; done
echo "osd.$victim is out after $(( $(date +%s%3N) - start_ms )) ms (mon_osd_down_out_interval ${down_out} s)"
admin osd map claypool obj
read -r -a now <<< "$(acting)"
new="${now[1]}"
echo
echo "== recovery: placement moved osd.$victim's shards; each PG's primary peers and the OSD that now"
echo "   holds a lost shard pulls it from the helpers (CLAY: d*C/q per stripe, RS: k*C), in the background"
watch_recovery 120
echo "-- recovery counters summed over the OSDs (bytes received from helpers, read by the helpers'"
echo "   devices, rebuilt), by pool:"
recovery_bytes
rados -p claypool get obj "$cl/read.obj"
cmp -s "$cl/read.obj" "$object" || { echo "MISMATCH after recovery" >&2; exit 1; }
echo "shard 1 of obj now lives on osd.$new, rebuilt there; obj reads back identical"
"$root/build/bin/ec-rados" -p claypool cleanup --run-name demo
echo
echo "== while osd.$victim is out, small-1 and small-2 change in the three pools"
for p in claypool rspool reppool; do
  for n in 1 2; do
    head -c $((n * 41000)) "$object" | tail -c $((n * 30000)) > "$cl/small.$n"
    "$root/build/bin/ec-rados" -p "$p" put "small-$n" "$cl/small.$n"
  done
done
before="$(recovery_bytes)"
echo
echo "== restart osd.$victim: up and in again (it was marked out by the monitor, not by a person);"
echo "   placement moves its shards back: backfill copies only what changed while it was out"
: > "$cl/osd.$victim.out"
setsid "$root/build/bin/ec-osd" -c "$EC_CONF" -i "$victim" >> "$cl/osd.$victim.out" 2>&1 < /dev/null &
echo $! > "$cl/osd.$victim.pid"
until [ "$(map_field "$victim" up)" = "1" ]; do sleep 0.1; done
watch_recovery 120
echo "-- recovery counters before the restart, then after (the difference: the shards of the"
echo "   changed objects, copied whole from the OSDs that held them, not rebuilt):"
echo "$before"
recovery_bytes
for p in claypool rspool reppool; do
  for n in 1 2 3 4 5; do
    "$root/build/bin/ec-rados" -p "$p" get "small-$n" "$cl/read.small"
    cmp -s "$cl/read.small" "$cl/small.$n" || { echo "MISMATCH in $p/small-$n" >&2; exit 1; }
  done
done
echo "every small object reads back identical in the three pools"
admin -s
echo "-- osd.${set[0]} metrics (excerpt):"
http_get "$(osd_mport "${set[0]}")" /metrics |
  grep -E '^ecstore_osd_(ops_total|op_bytes_total\{op="(write|read)"|map_epoch)'
echo "-- osd.$new status (excerpt):"
# head stops reading after 400 bytes: the reader's SIGPIPE is no failure (pipefail).
{ http_get "$(osd_mport "$new")" /status || true; } | head -c 400; echo " ..."
stop_cluster
echo "== cluster stopped (each OSD marked itself down); logs were in $cl/osd.N.log"
