#!/usr/bin/env bash
# Builds the libFuzzer target for the OSD frame and message decoders (and the authenticated
# handshake's messages, proofs and frame MACs) with clang
# (-fsanitize=fuzzer,address,undefined) into build-fuzz/ and runs it for SECONDS (default 60) on a
# seed corpus of valid frames of every message type. Exits non-zero when the fuzzer finds a crash,
# a sanitizer report or a leak (the reproducer is left in build-fuzz/).
#   scripts/fuzz.sh [SECONDS]        build, then run
#   scripts/fuzz.sh build            build only (scripts/test.sh builds it beside the release tests)
#   scripts/fuzz.sh run [SECONDS]    run what `build` made
set -euo pipefail

mode=all
case "${1:-}" in
  -h | --help) sed -n '2,9p' "$0" | sed -E 's/^# ?//'; exit 0 ;;
  build) mode=build; shift ;;
  run) mode=run; shift ;;
esac
SECONDS_TO_RUN="${1:-60}"
[[ "$SECONDS_TO_RUN" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a number" >&2; exit 2; }
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/build-fuzz"
CXX="${FUZZ_CXX:-clang++}"
mkdir -p "$OUT/corpus" "$OUT/seeds" "$OUT/obj"

# Only the codec and what it needs: the base layer's Status, byte codec and crc32c (common/), fmt,
# ISA-L (under common/crc32c.cc), and the handshake's proofs and frame MACs (msg/auth/, on
# OpenSSL's libcrypto).
CODEC=(msg/frame.cc msg/messages.cc msg/validate_request.cc msg/xattrs.cc common/codec.cc common/crc32c.cc
  common/status.cc msg/auth/crypto.cc msg/auth/handshake.cc msg/auth/keyring.cc ec/buffer.cc)
FLAGS=(-std=c++20 -O1 -g -I"$ROOT" -fno-omit-frame-pointer -fno-sanitize-recover=all)
LIBS=(-lisal -lfmt -lcrypto)

build() {
  cd "$ROOT"
  # The codec is compiled once, with the fuzzer's coverage instrumentation (fuzzer-no-link), and
  # linked into both programs: the seed maker (no fuzzer main) and the fuzzer. In parallel, one
  # compiler per core.
  local objs=() pids=() jobs i
  jobs="$(nproc)"
  for i in "${!CODEC[@]}"; do
    objs+=("$OUT/obj/$(echo "${CODEC[$i]}" | tr / _).o")
    "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "${CODEC[$i]}" \
      -o "${objs[$i]}" &
    pids+=($!)
    if [ "${#pids[@]}" -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done
  for i in "${pids[@]}"; do wait "$i"; done
  "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer-no-link,address,undefined -o "$OUT/make_seeds" \
    msg/fuzz/make_seeds.cc "${objs[@]}" "${LIBS[@]}"
  "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer,address,undefined -o "$OUT/frame_fuzzer" \
    msg/fuzz/frame_fuzzer.cc "${objs[@]}" "${LIBS[@]}"
}

run() {
  [ -x "$OUT/frame_fuzzer" ] && [ -x "$OUT/make_seeds" ] ||
    { echo "fuzz.sh: nothing built in $OUT: run scripts/fuzz.sh build first" >&2; exit 1; }
  "$OUT/make_seeds" "$OUT/seeds"
  echo "fuzzing the frame decoder for ${SECONDS_TO_RUN}s"
  cd "$OUT"
  # -rss_limit_mb: a decoder that allocates what a length field claims would blow it.
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
    ./frame_fuzzer -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=1024 -max_len=65536 \
    -print_final_stats=1 corpus seeds
}

case "$mode" in
  build) build ;;
  run) run ;;
  all) build; run ;;
esac
