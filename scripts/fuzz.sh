#!/usr/bin/env bash
# Builds the libFuzzer target for the OSD frame and message decoders (and the authenticated
# handshake's messages, proofs and frame MACs) with clang
# (-fsanitize=fuzzer,address,undefined) into build-fuzz/ and runs it for SECONDS (default 60) on a
# seed corpus of valid frames of every message type. Exits non-zero when the fuzzer finds a crash,
# a sanitizer report or a leak (the reproducer is left in build-fuzz/).
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail

SECONDS_TO_RUN="${1:-60}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/build-fuzz"
CXX="${FUZZ_CXX:-clang++}"
mkdir -p "$OUT/corpus" "$OUT/seeds"

# Only the codec and what it needs: the base layer's Status, byte codec and crc32c (common/), fmt,
# ISA-L (under common/crc32c.cc), and the handshake's proofs and frame MACs (msg/auth/, on
# OpenSSL's libcrypto).
CODEC=(msg/frame.cc msg/messages.cc msg/validate_request.cc msg/xattrs.cc common/codec.cc common/crc32c.cc
  common/status.cc msg/auth/crypto.cc msg/auth/handshake.cc msg/auth/keyring.cc ec/buffer.cc)
FLAGS=(-std=c++20 -O1 -g -I"$ROOT" -fno-omit-frame-pointer)

cd "$ROOT"
"$CXX" "${FLAGS[@]}" -fsanitize=address,undefined -o "$OUT/make_seeds" \
  msg/fuzz/make_seeds.cc "${CODEC[@]}" -lisal -lfmt -lcrypto
"$OUT/make_seeds" "$OUT/seeds"
"$CXX" "${FLAGS[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -o "$OUT/frame_fuzzer" msg/fuzz/frame_fuzzer.cc "${CODEC[@]}" -lisal -lfmt -lcrypto

echo "fuzzing the frame decoder for ${SECONDS_TO_RUN}s"
cd "$OUT"
# -rss_limit_mb: a decoder that allocates what a length field claims would blow it.
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" \
  ./frame_fuzzer -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=1024 -max_len=65536 \
  -print_final_stats=1 corpus seeds
