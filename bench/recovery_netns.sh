#!/usr/bin/env bash
# Issue 15's recovery experiment: for each code and stripe unit, a cluster of k+m+1 OSD hosts in
# network namespaces (bench/netns_cluster.sh; every link tc tbf RATE both ways, etcd and the client
# on a namespace of their own), a pool filled with DATA bytes of OBJ_SIZE objects (plus 200 objects
# of 4 KiB for the client's read load; they are recovered too, and counted), then: the client's 4 KiB read load (one in flight) runs
# alone for LAT_SECS (baseline), osd.VICTIM is killed (SIGKILL) and, once down in the map, marked
# out; the run ends when every PG is active+clean again. Measured per run:
#   time to clean      out -> the first `ec-admin -s` with every PG active+clean (OSDs report every
#                      osd_mon_report_interval, set to 1s here, or at once on a map change);
#   transfer time      out -> when 99% of the bytes into the OSD hosts above the baseline's rate
#                      had crossed (link counters sampled every 0.1 s; not delayed by reports);
#   network / device / rebuilt bytes   the OSDs' ecstore_recovery_* counters (after - before);
#   wire bytes         the bridge-side veth counters (/sys/class/net) of every host link;
#   busiest link       max over links and directions of its bytes / (transfer time x RATE);
#   client p99         of the reads started in the baseline (healthy), between down and out (the
#                      OSD down, not out: degraded, nothing recovers; LAT_SECS long) and between
#                      out and clean (one ec-rados run across all three, --latency-log; the same
#                      load every time). The target compares recovery with degraded.
#   time per object    the rebuilding OSDs' ecstore_recovery_pull_seconds (_sum / _count): with
#                      --osd-opt osd_max_backfills=1 --osd-opt osd_recovery_max_active=1 one
#                      object's repair alone;
#   busiest link bytes max over links and directions of its bytes during the transfer / rebuilt
#                      bytes (issue 33: <= 1.1 through chains).
# Then bench/tools/recovery_summary.py writes OUT/recovery.json, recovery.md, recovery_time.png,
# recovery_bytes.png and prints the table with the target ratios.
#
# Usage: bench/recovery_netns.sh [options]                         (as root)
#   --data SIZE          DATA, bytes written per pool (default 2G; K/M/G binary)
#   --obj-size SIZE      OBJ_SIZE, object size (default 4M)
#   --obj-stripes N      OBJ_STRIPES: objects of N whole stripes of each code instead (k x stripe
#                        unit x N bytes; 1 with a 4 MiB stripe unit: issue 33's 4 MiB chunks)
#   --objects N          OBJECTS: write N objects per pool instead of DATA bytes
#   --codes "LIST"       CODES, of rs42 clay42 rs104 clay104 lrc843 (default the first four, in
#                        that order): RS(4,2) isa, CLAY(4,2,5), RS(10,4) isa, CLAY(10,4,13),
#                        LRC(k=8,m=4,l=3) (16 chunks: 17 OSD hosts)
#   --pipelines "LIST"   PIPELINES, of off auto on: each code runs once per value, on a fresh
#                        cluster, with osd_repair_pipeline set to it (issue 33: repair chains
#                        against direct pulls in one run); default: the OSDs' default, one run
#   --stripe-units "L"   STRIPE_UNITS, bytes (default "32768 4096"); a stripe unit a code refuses
#                        is doubled until the pool accepts it (CLAY(10,4,13): 4096 -> 8192)
#   --rate RATE          RATE, tc rate of every link (default 1gbit)
#   --dscp-bands on|off  DSCP_BANDS (default on): links send recovery's DSCP CS1 packets after the
#                        others (netns_cluster.sh --dscp-bands); off: one FIFO per link
#   --pgs N              PGS, PGs per pool (default 32)
#   --lat-secs S         LAT_SECS, baseline seconds of the client load (default 10)
#   --no-latency         LATENCY=0: no client load
#   --read-size SIZE     READ_SIZE: the client load reads SIZE bytes at random aligned offsets of
#                        the filled objects (with --obj-stripes 1 and SIZE = the stripe unit: one
#                        whole chunk per read, degraded when it is the lost one's) instead of 200
#                        objects of 4 KiB
#   --client-stop WHEN   CLIENT_STOP, out or clean (default): the client load stops when the OSD
#                        is marked out (the recovery then runs alone) or when every PG is clean
#   --osd-opt KEY=VALUE  OSD_OPTS (space-separated KEY=VALUE), more OSD options, e.g. throttles
#                        osd_max_backfills=2 osd_recovery_max_active=8 (defaults: config_values.cc)
#   --victim ID          VICTIM, the OSD killed (default 1)
#   --grace S            GRACE, the cluster's osd_heartbeat_grace and liveness lease in seconds
#                        (default 3: the killed OSD is down within seconds). On 2 cores a chained
#                        recovery at 100 Mbit/s kept the CPU at 96-98% and etcd answered in up to
#                        0.3 s: live OSDs lost their 3 s leases and were marked down mid-recovery
#                        (their chains then failed over to direct pulls); 10 avoids that
#   --build DIR          BUILD (default build): DIR/bin/ec-osd, ec-admin, ec-rados
#   --out DIR            OUT (default bench/results; with --smoke the work directory)
#   --label TEXT         LABEL, first line of the table (default: the parameters)
#   --keep               KEEP=1: keep the work directory (clusters, logs, raw JSON)
#   --no-plots           PLOTS=0: the JSON and the table only (no gnuplot needed)
#   --smoke              DATA=16M CODES=clay42 STRIPE_UNITS=32768 LAT_SECS=2 (a check, not a figure)
#   -h, --help
# Needs root, iproute2, etcd, python3, gnuplot (bench/setup.sh; not with --no-plots), the build.
# Device files are allocated whole (fallocate): about hosts x (DATA x 1.6 / k + 128M) of free disk
# per run; each run's cluster is deleted before the next starts. Everything started is stopped on
# exit, also on failure or SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "recovery_netns.sh: $*" >&2; exit 1; }

data="${DATA:-2G}" obj_size="${OBJ_SIZE:-4M}" codes="${CODES:-rs42 clay42 rs104 clay104}"
obj_stripes="${OBJ_STRIPES:-0}" nobjects="${OBJECTS:-0}" pipelines="${PIPELINES:-}"
read_size="${READ_SIZE:-}" client_stop="${CLIENT_STOP:-clean}"
sus="${STRIPE_UNITS:-32768 4096}" rate="${RATE:-1gbit}" pgs="${PGS:-32}"
lat_secs="${LAT_SECS:-10}" latency="${LATENCY:-1}" osd_opts="${OSD_OPTS:-}"
victim="${VICTIM:-1}" grace="${GRACE:-3}" build="${BUILD:-build}" out="${OUT:-}" label="${LABEL:-}" keep="${KEEP:-0}"
plots="${PLOTS:-1}" dscp_bands="${DSCP_BANDS:-on}" degraded_secs=0
smoke=0 orig_args="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="${2:?}"; shift 2 ;;
    --obj-size) obj_size="${2:?}"; shift 2 ;;
    --obj-stripes) obj_stripes="${2:?}"; shift 2 ;;
    --objects) nobjects="${2:?}"; shift 2 ;;
    --pipelines) pipelines="${2:?}"; shift 2 ;;
    --read-size) read_size="${2:?}"; shift 2 ;;
    --client-stop) client_stop="${2:?}"; shift 2 ;;
    --codes) codes="${2:?}"; shift 2 ;;
    --stripe-units) sus="${2:?}"; shift 2 ;;
    --rate) rate="${2:?}"; shift 2 ;;
    --dscp-bands) dscp_bands="${2:?}"; shift 2 ;;
    --pgs) pgs="${2:?}"; shift 2 ;;
    --lat-secs) lat_secs="${2:?}"; shift 2 ;;
    --no-latency) latency=0; shift ;;
    --osd-opt) osd_opts="$osd_opts ${2:?}"; shift 2 ;;
    --victim) victim="${2:?}"; shift 2 ;;
    --grace) grace="${2:?}"; shift 2 ;;
    --build) build="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    --label) label="${2:?}"; shift 2 ;;
    --keep) keep=1; shift ;;
    --no-plots) plots=0; shift ;;
    --smoke) smoke=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
if [ "$smoke" = 1 ]; then
  data=16M codes=clay42 sus=32768 lat_secs=2
fi

to_bytes() {  # 4096, 64K, 4M, 2G -> bytes
  [[ "$1" =~ ^([0-9]+)([KMG]?)i?B?$ ]] || die "'$1' is not a size (e.g. 4096, 64K, 4M, 2G)"
  local n="${BASH_REMATCH[1]}"
  case "${BASH_REMATCH[2]}" in K) n=$((n << 10)) ;; M) n=$((n << 20)) ;; G) n=$((n << 30)) ;; esac
  echo "$n"
}
rate_bytes() {  # tc rate -> bytes per second
  [[ "$1" =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] || die "RATE '$1': expected e.g. 1gbit, 500mbit"
  local n="${BASH_REMATCH[1]}"
  case "${BASH_REMATCH[2]}" in bit) ;; kbit) n=$((n * 1000)) ;; mbit) n=$((n * 1000000)) ;;
    gbit) n=$((n * 1000000000)) ;; esac
  echo $((n / 8))
}
code_params() {  # code -> "plugin k m d l chunks label" (d, l: 0 when the code has none)
  case "$1" in
    rs42) echo "isa 4 2 0 0 6 RS(4,2)_isa" ;;
    clay42) echo "clay 4 2 5 0 6 CLAY(4,2,5)" ;;
    rs104) echo "isa 10 4 0 0 14 RS(10,4)_isa" ;;
    clay104) echo "clay 10 4 13 0 14 CLAY(10,4,13)" ;;
    lrc843) echo "lrc 8 4 0 3 16 LRC(8,4,3)" ;;
    *) die "unknown code '$1' (rs42 clay42 rs104 clay104 lrc843)" ;;
  esac
}

data_bytes="$(to_bytes "$data")"
obj_bytes="$(to_bytes "$obj_size")"
rate_bps="$(rate_bytes "$rate")"
[ "$obj_bytes" -ge 4096 ] && [ "$obj_bytes" -le $((64 << 20)) ] || die "OBJ_SIZE must be 4K..64M"
[[ "$obj_stripes" =~ ^[0-9]+$ ]] || die "OBJ_STRIPES must be a number"
[[ "$nobjects" =~ ^[0-9]+$ ]] || die "OBJECTS must be a number"
for p in $pipelines; do
  case "$p" in off|auto|on) ;; *) die "PIPELINES: '$p' is not off, auto or on" ;; esac
done
[ -n "$pipelines" ] || pipelines="-"  # one run with the OSDs' default
read_bytes=0
[ -z "$read_size" ] || read_bytes="$(to_bytes "$read_size")"
case "$client_stop" in out|clean) ;; *) die "CLIENT_STOP must be out or clean" ;; esac
[[ "$pgs" =~ ^[0-9]+$ ]] && [ "$pgs" -ge 1 ] || die "PGS must be a number >= 1"
[[ "$lat_secs" =~ ^[0-9]+$ ]] && [ "$lat_secs" -ge 2 ] || die "LAT_SECS must be whole seconds >= 2"
[[ "$grace" =~ ^[0-9]+$ ]] && [ "$grace" -ge 1 ] || die "GRACE must be whole seconds >= 1"
for c in $codes; do code_params "$c" > /dev/null; done
# The object size and count of code $1 with stripe unit $2: "bytes count".
objects_of() {
  local plugin k m d l chunks name bytes="$obj_bytes" n
  read -r plugin k m d l chunks name <<< "$(code_params "$1")"
  [ "$obj_stripes" = 0 ] || bytes=$((obj_stripes * k * $2))
  [ "$bytes" -le $((256 << 20)) ] || die "$name: objects of $bytes bytes (at most 256 MiB)"
  n="$nobjects"
  [ "$n" != 0 ] || n=$(((data_bytes + bytes - 1) / bytes))
  echo "$bytes $n"
}
for su in $sus; do [[ "$su" =~ ^[0-9]+$ ]] || die "stripe unit '$su' is not a number of bytes"; done
[ "$(id -u)" = 0 ] || die "must run as root (network namespaces)"
for p in ec-osd ec-admin ec-rados; do
  [ -x "$build/bin/$p" ] || die "no $build/bin/$p: build first (cmake --build $build)"
done
command -v python3 > /dev/null || die "no python3: run bench/setup.sh"
[ "$plots" = 0 ] || command -v gnuplot > /dev/null || die "no gnuplot: run bench/setup.sh (or --no-plots)"
plot_arg=""; [ "$plots" = 0 ] || plot_arg=--plots
bin="$(cd "$build/bin" && pwd)"
admin="$bin/ec-admin"

work="$(mktemp -d /tmp/ec-recovery-netns.XXXXXX)"
[ -n "$out" ] || { if [ "$smoke" = 1 ]; then out="$work/results"; else out="$root/bench/results"; fi; }
cluster="" client_pid="" child=""
# Long steps run in the background and are waited for, so that SIGTERM/SIGINT reach the trap at
# once (bash runs a trap only after a foreground child ends) and the trap can stop them.
run() { "$@" & child=$!; wait "$child"; local rc=$?; child=""; return "$rc"; }
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
    kill -TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  if [ -n "$client_pid" ] && kill -0 "$client_pid" 2>/dev/null; then
    kill -TERM "$client_pid" 2>/dev/null || true
    wait "$client_pid" 2>/dev/null || true
  fi
  if [ -n "$cluster" ]; then
    bench/netns_cluster.sh stop --dir "$cluster" > /dev/null 2>&1 ||
      echo "recovery_netns.sh: stopping the cluster in $cluster failed" >&2
  fi
  if [ "$keep" = 1 ]; then
    echo "kept $work" >&2
  elif [ "$rc" -ne 0 ]; then
    # Keep the logs of a failed run, not its device files; summarise the runs that completed.
    rm -rf "$work"/c_*/osd.*/ "$work"/c_*/etcd 2>/dev/null || true
    if ls "$work"/meta_*.json > /dev/null 2>&1; then
      python3 bench/tools/recovery_summary.py "$work" "$work/results_partial" $plot_arg \
        > /dev/null 2>&1 && echo "the runs that completed: $work/results_partial" >&2
    fi
    echo "failed; logs kept in $work (delete it when done)" >&2
  else
    rm -rf "$work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
flags=""
for f in avx2 avx512f avx512bw gfni; do
  grep -qw "$f" /proc/cpuinfo && flags="$flags ${f^^}"
done
commit="$(git describe --always --dirty 2>/dev/null || echo unknown)"
sizes="OBJ_SIZE=$obj_size"
[ "$obj_stripes" = 0 ] || sizes="OBJ_STRIPES=$obj_stripes"
[ "$nobjects" = 0 ] && sizes="DATA=$data $sizes" || sizes="OBJECTS=$nobjects $sizes"
[ -z "$read_size" ] || sizes="$sizes READ_SIZE=$read_size"
[ "$pipelines" = "-" ] || sizes="$sizes PIPELINES=${pipelines// /,}"
[ -n "$label" ] || label="$sizes RATE=$rate DSCP_BANDS=$dscp_bands PGS=$pgs, $(date -u +%Y-%m-%d), \
$(nproc) cores ($cpu;$flags), commit $commit"
python3 - "$work/params.json" <<PY
import json, sys
json.dump({"label": """$label""", "data": "$data", "data_bytes": $data_bytes, "obj_size": "$obj_size",
           "obj_stripes": $obj_stripes, "objects": $nobjects, "pipelines": "$pipelines".split(),
           "read_size": $read_bytes, "client_stop": "$client_stop",
           "codes": "$codes".split(), "stripe_units": [int(s) for s in "$sus".split()],
           "rate": "$rate", "rate_bytes_per_sec": $rate_bps, "pgs": $pgs, "lat_secs": $lat_secs,
           "latency": $latency, "osd_opts": "$osd_opts".split(), "victim": $victim, "grace": $grace,
           "cpu": """$cpu""", "cpu_flags": "$flags".split(), "cores": $(nproc), "commit": "$commit",
           "command": """$0 $orig_args"""}, open(sys.argv[1], "w"), indent=1)
PY

status_clean() {  # 0 when every PG is active+clean
  "$admin" -c "$1" -s --format json 2> /dev/null |
    grep -q '"pgs_by_state":\[{"count":[0-9]*,"state_name":"active+clean"}\]'
}
metrics() {  # cluster-dir conf hosts victim out-file: every OSD's /metrics but the victim's
  local dir="$1" hosts="$3" net id
  net="$(sed -n 's/^net=//p' "$dir/netns.env")"
  : > "$5"
  for id in $(seq 0 $((hosts - 1))); do
    [ "$id" = "$4" ] && continue
    python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
      "http://$net.$((11 + id)):9283/metrics" >> "$5" || die "no /metrics from osd.$id"
  done
}

nruns=0 total=0
for su in $sus; do for c in $codes; do for pl in $pipelines; do total=$((total + 1)); done; done; done
t_all=$SECONDS
echo "== recovery experiment: $label"
echo "   codes: $codes; stripe units: $sus; osd_repair_pipeline: ${pipelines/-/default}; work $work"
for su_asked in $sus; do
  for code in $codes; do
    for pipeline in $pipelines; do
    nruns=$((nruns + 1))
    read -r plugin k m d l chunks name <<< "$(code_params "$code")"
    name="${name//_/ }"
    hosts=$((chunks + 1))
    [ "$victim" -lt "$hosts" ] || die "VICTIM $victim: only osd.0..osd.$((hosts - 1))"
    tag="${code}_$su_asked"
    [ "$pipeline" = "-" ] || tag="${tag}_$pipeline"
    cluster="$work/c_$tag"
    conf="$cluster/ecstore.conf"
    # Sized for the stripe unit asked, doubled in case the code refuses it (below).
    read -r obj_bytes objects <<< "$(objects_of "$code" "$su_asked")"
    dev_mib=$((objects * obj_bytes * 2 * 16 / 10 / k / 1048576 + 128))
    [ "$dev_mib" -ge 256 ] || dev_mib=256
    avail="$(df --output=avail -BM "$work" | tail -n 1 | tr -dc 0-9)"
    [ "$avail" -gt $((hosts * dev_mib + 1024)) ] ||
      die "$tag needs $((hosts * dev_mib)) MiB of device files, $avail MiB free under $work"
    pl_txt=""
    [ "$pipeline" = "-" ] || pl_txt=", osd_repair_pipeline=$pipeline"
    echo "== [$nruns/$total] $name, stripe unit $su_asked$pl_txt: $hosts OSD hosts + client, \
links $rate, $((hosts * dev_mib)) MiB of device files"
    opt_args=(--osd-opt osd_mon_report_interval=1s)
    [ "$pipeline" = "-" ] || opt_args+=(--osd-opt "osd_repair_pipeline=$pipeline")
    for o in $osd_opts; do opt_args+=(--osd-opt "$o"); done
    bench/netns_cluster.sh start --dir "$cluster" --hosts "$hosts" --rate "$rate" --grace "$grace" \
      --dscp-bands "$dscp_bands" --down-out 86400 --device-size "${dev_mib}M" --bin "$bin" "${opt_args[@]}" \
      > "$work/start_$tag.log" 2>&1 || { tail -n 20 "$work/start_$tag.log" >&2; die "start failed"; }

    # The pool; a stripe unit the code refuses is doubled until it is accepted.
    su="$su_asked"
    while :; do
      cparams=""
      [ "$d" = 0 ] || cparams="d=$d"
      [ "$l" = 0 ] || cparams="l=$l"
      # shellcheck disable=SC2086
      if "$admin" -c "$conf" osd erasure-code-profile set "p$su" plugin="$plugin" k="$k" m="$m" \
           $cparams stripe_unit="$su" crush-failure-domain=host > "$work/pool_$tag.log" 2>&1 &&
         "$admin" -c "$conf" osd pool create bench "$pgs" "$pgs" erasure "p$su" \
           >> "$work/pool_$tag.log" 2>&1; then
        break
      fi
      echo "   stripe unit $su refused: $(tail -n 1 "$work/pool_$tag.log")"
      su=$((su * 2))
      [ "$su" -le 1048576 ] || die "no stripe unit up to 1 MiB accepted for $name"
    done
    [ "$su" = "$su_asked" ] || echo "   using stripe unit $su (the smallest multiple of 2 x $su_asked accepted)"
    read -r obj_bytes objects <<< "$(objects_of "$code" "$su")"

    t0=$SECONDS
    # Few writes in flight for big objects: each one's shards share the client's link.
    fill_t=$(((256 << 20) / obj_bytes))
    [ "$fill_t" -le 16 ] || fill_t=16
    [ "$fill_t" -ge 2 ] || fill_t=2
    run "$bin/ec-rados" -c "$conf" -p bench bench 86400 write -b "$obj_bytes" -t "$fill_t" \
      --max-objects "$objects" --no-cleanup --run-name fill --format json > "$work/fill_$tag.json"
    fill_mb="$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["bandwidth"], 1))' \
      "$work/fill_$tag.json")"
    if [ "$read_bytes" = 0 ]; then
      "$bin/ec-rados" -c "$conf" -p bench bench 600 write -b 4096 -t 4 --max-objects 200 \
        --no-cleanup --run-name lat --format json > "$work/fill_lat_$tag.json"
      echo "   filled: $objects objects of $obj_bytes bytes in $((SECONDS - t0)) s ($fill_mb MB/s)" \
        "+ 200 objects of 4 KiB for the client"
    else
      echo "   filled: $objects objects of $obj_bytes bytes in $((SECONDS - t0)) s ($fill_mb MB/s)"
    fi
    deadline=$((SECONDS + 300))
    until status_clean "$conf"; do
      [ "$SECONDS" -lt "$deadline" ] || die "not active+clean 300 s after the fill"
      sleep 0.5
    done
    metrics "$cluster" "$conf" "$hosts" "$victim" "$work/metrics_$tag.before"

    client_pid=""
    if [ "$latency" = 1 ]; then
      load=(--run-name lat)
      what="4 KiB reads"
      if [ "$read_bytes" != 0 ]; then
        load=(--run-name fill --read-size "$read_bytes")
        what="reads of $read_bytes bytes of the filled objects"
      fi
      bench/netns_cluster.sh exec --dir "$cluster" client "$bin/ec-rados" -c "$conf" -p bench \
        bench 86400 rand -t 1 "${load[@]}" --latency-log "$work/lat_$tag.log" --format json \
        > "$work/client_$tag.json" 2> "$work/client_$tag.err" &
      client_pid=$!
      sleep 1
      kill -0 "$client_pid" 2> /dev/null || { cat "$work/client_$tag.err" >&2; die "client load failed"; }
      degraded_secs="$lat_secs"
      echo "   client: $what, 1 in flight, $lat_secs s healthy, $lat_secs s degraded (down, not" \
        "out), then until $client_stop"
    fi
    links="$(printf '%s' "$cluster" | sha1sum | cut -c1-6)"
    lp="ecn$links-"
    host_links="$(seq 1 "$hosts" | sed "s/^/${lp}h/" | paste -sd,)"
    osd_pids="$(for i in $(seq 0 $((hosts - 1))); do
                  [ "$i" = "$victim" ] || echo "$i:$(cat "$cluster/osd.$i.pid")"; done | paste -sd,)"
    run python3 bench/tools/recovery_run.py --admin "$admin" --conf "$conf" --victim "$victim" \
      --osd-pids "$osd_pids" --client-stop "$client_stop" \
      --victim-pid "$(cat "$cluster/osd.$victim.pid")" ${client_pid:+--client-pid "$client_pid"} \
      --links "$host_links,${lp}e" --baseline "$lat_secs" --degraded "$degraded_secs" \
      --out "$work/run_$tag.json"
    if [ -n "$client_pid" ]; then
      # SIGTERM ends the load with its summary (status 0); anything else is a failure.
      wait "$client_pid" || { cat "$work/client_$tag.err" >&2; die "the client load failed"; }
      client_pid=""
    fi
    metrics "$cluster" "$conf" "$hosts" "$victim" "$work/metrics_$tag.after"
    python3 - "$work/meta_$tag.json" <<PY
import json, sys
json.dump({"code": "$code", "label": "$name", "plugin": "$plugin", "k": $k, "m": $m,
           "d": ($d or None), "l": ($l or None), "chunks": $chunks, "stripe_unit": $su,
           "stripe_unit_asked": $su_asked, "pipeline": "${pipeline/#-/default}",
           "data_bytes": $objects * $obj_bytes, "objects": $objects, "object_size": $obj_bytes,
           "read_size": $read_bytes,
           "pgs": $pgs, "hosts": $hosts, "rate_bytes_per_sec": $rate_bps, "fill_mb_sec": $fill_mb,
           "host_links": "$host_links".split(","), "client_link": "${lp}e"},
          open(sys.argv[1], "w"))
PY
    bench/netns_cluster.sh stop --dir "$cluster" > /dev/null
    mkdir -p "$work/logs_$tag"
    cp "$cluster"/*.log "$cluster"/*.out "$cluster/ecstore.conf" "$work/logs_$tag/" 2>/dev/null || true
    rm -rf "$cluster"
    cluster=""
    done
  done
done
echo "== all $total runs in $((SECONDS - t_all)) s; results in $out"
python3 bench/tools/recovery_summary.py "$work" "$out" --label "$label" $plot_arg
