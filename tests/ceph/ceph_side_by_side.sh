#!/usr/bin/env bash
# Byte compatibility against Ceph itself, on vectors that are NOT in ../shared: for each profile,
# Ceph 16.2's ceph-erasure-code-tool encodes a random object, ec-tool encodes the same object and
# every shard file must be identical; then ec-tool decodes from random k-subsets of Ceph's shards
# and must give back the object (padded to whole stripes), and `ec-tool repair` rebuilds a random
# lost shard from Ceph's shards (CLAY reading exactly d x chunk/q per stripe, LRC exactly the l
# other shards of the lost shard's local group; SHEC's read set is printed). A fourth field gives
# ec-tool another profile for the same code: Ceph 16.2's tool cannot take an explicit lrc mapping
# + layers (it cuts the JSON at commas and reads k=-1 from the profile), so those are checked
# against Ceph's k/m/l encoding of the same layout.
# Usage: tests/ceph/ceph_side_by_side.sh BUILD_DIR
# Needs ceph-erasure-code-tool (Debian package ceph-osd; scripts/test.sh installs it).
set -euo pipefail
build="${1:?usage: $0 BUILD_DIR}"
tool="$build/bin/ec-tool"
ceph_tool="$(command -v ceph-erasure-code-tool || true)"
[ -x "$tool" ] || { echo "FAIL: $tool not built" >&2; exit 1; }
[ -n "$ceph_tool" ] || { echo "FAIL: ceph-erasure-code-tool not installed (apt-get install ceph-osd)" >&2; exit 1; }

work="$(mktemp -d /tmp/ecstore-ceph-compare.XXXXXX)"
trap 'rm -rf "$work"' EXIT
export CEPH_CONF="$work/empty.conf"
: > "$CEPH_CONF"
seed="${SEED:-$RANDOM}"
echo "seed=$seed (set SEED to replay)"
RANDOM=$seed

# profile | stripe unit | object size
cases=(
  "plugin=jerasure,technique=reed_sol_van,k=3,m=2|4096|100000"
  "plugin=jerasure,technique=reed_sol_van,k=6,m=3,w=16|4096|200000"
  "plugin=jerasure,technique=reed_sol_van,k=5,m=3,w=32|4096|150001"
  "plugin=jerasure,technique=reed_sol_van,k=5,m=2,jerasure-per-chunk-alignment=true|4096|70000"
  "plugin=jerasure,technique=reed_sol_van,k=10,m=4|8192|300000"
  "plugin=jerasure,technique=reed_sol_r6_op,k=6,m=2|4096|99999"
  "plugin=jerasure,technique=cauchy_orig,k=5,m=3,packetsize=64|2048|123456"
  "plugin=jerasure,technique=cauchy_good,k=6,m=2,packetsize=32|1024|50000"
  "plugin=jerasure,technique=cauchy_good,k=8,m=4,packetsize=128|4096|400000"
  "plugin=jerasure,technique=liberation,k=5,m=2,w=7,packetsize=32|896|40000"
  "plugin=jerasure,technique=blaum_roth,k=4,m=2,w=6,packetsize=32|768|30000"
  "plugin=jerasure,technique=liber8tion,k=6,m=2,packetsize=32|1024|60000"
  "plugin=isa,technique=reed_sol_van,k=10,m=4|4096|300000"
  "plugin=isa,technique=reed_sol_van,k=2,m=1|4096|10000"
  "plugin=isa,technique=cauchy,k=3,m=1|4096|20000"
  "plugin=isa,technique=cauchy,k=12,m=6|4096|500000"
)
if [ -e "$build/lib/libec_clay.so" ]; then
  cases+=(
    "plugin=clay,k=4,m=2,scalar_mds=isa|4096|100000"
    "plugin=clay,k=4,m=2,scalar_mds=isa,technique=cauchy|4096|100000"
    "plugin=clay,k=5,m=3,d=6|4096|81920"
    "plugin=clay,k=4,m=3,d=5|4096|70000"
    "plugin=clay,k=10,m=4,d=13|8192|400000"
    "plugin=clay,k=6,m=3,d=7,scalar_mds=isa,technique=cauchy|6144|90000"
    "plugin=clay,k=3,m=2,d=3|4608|40000"
  )
fi

if [ -e "$build/lib/libec_lrc.so" ]; then
  explicit_423='plugin=lrc,mapping=DD__DD__,layers=[["DDc_DDc_",""],["DDDc____","plugin=jerasure technique=reed_sol_van"],["____DDDc",{"plugin":"jerasure"}]]'
  explicit_633='plugin=lrc mapping=DD__DD__DD__ layers=[["DDc_DDc_DDc_",""],["DDDc________",""],["____DDDc____",""],["________DDDc",""]] crush-steps=[["choose","rack",3],["chooseleaf","host",4]]'
  cases+=(
    "plugin=lrc,k=4,m=2,l=3|4096|100000"
    "plugin=lrc,k=2,m=2,l=2|4096|30000"
    "plugin=lrc,k=8,m=4,l=3|4096|300000"
    "plugin=lrc,k=6,m=3,l=3|8192|200001"
    "plugin=lrc,k=8,m=4,l=6|4096|250000"
    "plugin=lrc,k=4,m=2,l=3|4096|100000|$explicit_423"
    "plugin=lrc,k=6,m=3,l=3|4096|150000|$explicit_633"
  )
fi
if [ -e "$build/lib/libec_shec.so" ]; then
  cases+=(
    "plugin=shec,k=4,m=3,c=2|4096|100000"
    "plugin=shec,technique=single,k=6,m=3,c=2|4096|200000"
    "plugin=shec,k=8,m=4,c=3,w=16|4096|300000"
    "plugin=shec,technique=single,k=5,m=2,c=1,w=32|4096|150001"
    "plugin=shec,k=10,m=6,c=3|8192|400000"
    "plugin=shec,k=12,m=8,c=4,w=16|4096|500000"
    "plugin=shec,technique=single,k=3,m=2,c=2,w=32|4096|50000"
  )
  if [ -e "$build/lib/libec_clay.so" ]; then
    cases+=(
      "plugin=clay,k=4,m=2,scalar_mds=shec|4096|100000"
      "plugin=clay,k=4,m=3,d=5,scalar_mds=shec|4096|70000"
      "plugin=clay,k=5,m=3,d=7,scalar_mds=shec,technique=multiple|4320|90000"
    )
  fi
fi

fail=0
index=0
for c in "${cases[@]}"; do
  index=$((index + 1))
  IFS='|' read -r profile su size ours <<<"$c"
  ours="${ours:-$profile}"
  dir="$work/$index-$(echo "$profile" | tr ',=' '__')"
  mkdir -p "$dir/ceph" "$dir/ours"
  head -c "$size" /dev/urandom > "$dir/ceph/obj"
  cp "$dir/ceph/obj" "$dir/ours/obj"
  n="$("$tool" validate-profile "$ours" chunk_count)"
  k="$("$tool" validate-profile "$ours" data_chunk_count)"
  # Decodes read n - tolerated shards: k for MDS codes, n - m for lrc (any m losses decode),
  # n - c for SHEC (any c losses decode), for CLAY over SHEC n - 2 (every double loss decodes;
  # with m=3 Ceph's tool writes wrong bytes for two lost chunks of one group, ec-tool decodes
  # them: plugins/clay/clay_profile_test.cc).
  keep="$k"
  if [[ "$profile" == plugin=lrc* ]]; then
    keep=$(( n - $(echo "$profile" | tr ',' '\n' | sed -n 's/^m=//p') ))
  elif [[ "$profile" == plugin=shec* ]]; then
    c_="$(echo "$profile" | tr ',' '\n' | sed -n 's/^c=//p')"
    keep=$(( n - ${c_:-2} ))
  elif [[ "$profile" == *scalar_mds=shec* ]]; then
    keep=$(( n - 2 ))
  fi
  all="$(seq -s, 0 $((n - 1)))"
  if ! "$ceph_tool" encode "$profile" "$su" "$all" "$dir/ceph/obj" >"$dir/ceph.log" 2>&1; then
    echo "FAIL $profile: Ceph's tool failed (see its log below)"; tail -5 "$dir/ceph.log"; fail=1; continue
  fi
  "$tool" encode "$ours" "$su" "$all" "$dir/ours/obj"
  same=1
  for i in $(seq 0 $((n - 1))); do
    cmp -s "$dir/ceph/obj.$i" "$dir/ours/obj.$i" || { echo "FAIL $profile: shard $i differs from Ceph's"; same=0; }
  done
  # Decode from Ceph's shards: three random subsets of `keep` shards.
  stripe=$((su * k))
  padded=$(( (size + stripe - 1) / stripe * stripe ))
  head -c "$padded" /dev/zero > "$dir/expect"
  dd if="$dir/ceph/obj" of="$dir/expect" conv=notrunc status=none
  for t in 1 2 3; do
    # (shuf over a repeated seed string drew the same subset every time: awk's srand draws from
    # $RANDOM, which the seed above makes replayable.)
    subset="$(seq 0 $((n - 1)) | awk -v s="$RANDOM" 'BEGIN { srand(s) } { print rand(), $0 }' |
      sort -n | head -n "$keep" | cut -d' ' -f2 | sort -n | paste -sd,)"
    rm -f "$dir/ceph/obj"
    if ! "$tool" decode "$ours" "$su" "$subset" "$dir/ceph/obj" || ! cmp -s "$dir/ceph/obj" "$dir/expect"; then
      echo "FAIL $profile: decode from Ceph's shards {$subset} is wrong"; same=0
    fi
  done
  # Repair one random shard of Ceph's set; CLAY must read exactly d x chunk/q per stripe.
  lost=$(( RANDOM % n ))
  mv "$dir/ceph/obj.$lost" "$dir/lost"
  if ! json="$("$tool" repair "$ours" "$su" "$lost" "$dir/ceph/obj")" || ! cmp -s "$dir/ceph/obj.$lost" "$dir/lost"; then
    echo "FAIL $profile: repair of shard $lost from Ceph's shards is wrong"; same=0
  elif [[ "$profile" == plugin=clay* ]]; then
    d="$(echo "$profile" | tr ',' '\n' | sed -n 's/^d=//p')"
    d="${d:-$((n - 1))}"
    stripes=$(( $(stat -c %s "$dir/lost") / su ))
    expect=$(( d * su / (d - k + 1) * stripes ))
    what="d*C/q*stripes"
    if [[ "$profile" == *k=5,m=3,d=7,scalar_mds=shec* && "$lost" -lt "$k" ]]; then
      # Its shec(6,3,c=2) sub-code cannot decode a data chunk's repair pattern (the chunk's group
      # in every plane): a whole decode from k (plugins/clay/clay_profile_test.cc).
      expect=$(( k * su * stripes )); what="k*C*stripes"
    fi
    got="$(echo "$json" | sed -n 's/.*"bytes_read":\([0-9]*\).*/\1/p')"
    [ "$got" = "$expect" ] || { echo "FAIL $profile: repair of shard $lost read $got bytes, expected $what = $expect"; same=0; }
  elif [[ "$profile" == plugin=lrc* ]]; then
    l="$(echo "$profile" | tr ',' '\n' | sed -n 's/^l=//p')"
    stripes=$(( $(stat -c %s "$dir/lost") / su ))
    expect=$(( l * su * stripes ))
    got="$(echo "$json" | sed -n 's/.*"bytes_read":\([0-9]*\).*/\1/p')"
    [ "$got" = "$expect" ] || { echo "FAIL $profile: repair read $got bytes, expected l*C*stripes = $expect"; same=0; }
  elif [[ "$profile" == plugin=shec* ]]; then
    helpers="$(echo "$json" | sed -n 's/.*"helpers":\[\([0-9,]*\)\].*/\1/p')"
    echo "     shec repair of shard $lost read shards [$helpers] (RS would read $k)"
  fi
  [ "$ours" = "$profile" ] || profile="$ours (against Ceph's $profile)"
  if [ "$same" -eq 1 ]; then echo "ok   $profile (su=$su, $n shards identical, 3 decodes, repair of shard $lost)"; else fail=1; fi
done
[ "$fail" -eq 0 ] && echo "all ${#cases[@]} profiles byte-identical to Ceph" || { echo "Ceph side-by-side: FAILURES"; exit 1; }
