#!/usr/bin/env bash
# ec-tool encode and repair of two builds side by side (a refactoring must not slow them down):
# the two tools run alternately on the same 256 MiB file in /dev/shm (page cache, no disk), REPS
# times each, and every output is compared byte for byte between the two. Prints the median and
# min-max wall time of each, and the ratio new/old of the medians.
# Usage: bench/compare_ec_tool.sh OLD_EC_TOOL NEW_EC_TOOL [REPS] [SIZE_MIB] [STRIPE_UNIT]
# Each ec-tool finds its plugins in its own ../lib (a build tree's bin/ec-tool does).
set -euo pipefail
old="${1:?old ec-tool}"; new="${2:?new ec-tool}"
reps="${3:-5}"; mib="${4:-256}"; su="${5:-4096}"
for t in "$old" "$new"; do [ -x "$t" ] || { echo "not executable: $t" >&2; exit 1; }; done
work="$(mktemp -d /dev/shm/compare-ec-tool.XXXXXX)"
trap 'rm -rf "$work"' EXIT
head -c $((mib << 20)) /dev/urandom > "$work/input"

ms() { local s e; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
stats() {  # numbers on stdin -> "median [min-max]"
  sort -n | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
                                 printf "%d ms [%d-%d]", m, v[1], v[NR]}'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf '%-8s %-26s %-22s %-22s %s\n' step profile old new new/old
for profile in "plugin=isa,k=4,m=2" "plugin=clay,k=4,m=2,d=5"; do
  n=$(( $("$new" validate-profile "$profile" chunk_count 2>/dev/null || echo 6) ))
  all=$(seq -s, 0 $((n - 1)))
  for side in old new; do mkdir -p "$work/$side"; ln -sf "$work/input" "$work/$side/obj"; done
  : > "$work/enc.old"; : > "$work/enc.new"; : > "$work/rep.old"; : > "$work/rep.new"
  for ((r = 0; r < reps; r++)); do
    order="old new"; ((r % 2)) && order="new old"
    for side in $order; do
      tool=$old; [ "$side" = new ] && tool=$new
      ms "$tool" encode "$profile" "$su" "$all" "$work/$side/obj" >> "$work/enc.$side"
    done
    for ((i = 0; i < n; i++)); do
      cmp -s "$work/old/obj.$i" "$work/new/obj.$i" || { echo "encode outputs differ: shard $i" >&2; exit 1; }
    done
    cp "$work/new/obj.1" "$work/shard1"
    for side in $order; do
      tool=$old; [ "$side" = new ] && tool=$new
      rm -f "$work/$side/obj.1"
      ms "$tool" repair "$profile" "$su" 1 "$work/$side/obj" >> "$work/rep.$side"
      cmp -s "$work/$side/obj.1" "$work/shard1" || { echo "$side repair rebuilt other bytes" >&2; exit 1; }
    done
  done
  for step in enc rep; do
    o=$(median < "$work/$step.old"); w=$(median < "$work/$step.new")
    printf '%-8s %-26s %-22s %-22s %.2f\n' "$([ $step = enc ] && echo encode || echo repair)" \
      "$profile" "$(stats < "$work/$step.old")" "$(stats < "$work/$step.new")" \
      "$(awk -v a="$w" -v b="$o" 'BEGIN {print (b > 0) ? a / b : 0}')"
  done
done
cpu=avx2; grep -qw avx512f /proc/cpuinfo && cpu=avx512; grep -qw gfni /proc/cpuinfo && cpu="$cpu+gfni"
echo "($reps alternated runs each, ${mib} MiB, stripe unit $su, /dev/shm; $cpu)"
