#!/usr/bin/env bash
# Every check, from a fresh Debian machine: installs the packages, checks formatting, builds and
# runs the whole suite in the release preset, checks bytes against Ceph's own tool, fuzzes the
# OSD frame decoder for a bounded time, and runs the suite again under ASan+UBSan.
# Usage: scripts/test.sh            (everything)
#        scripts/test.sh --quick    (release suite only, no sanitizers)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
[ "${1:-}" = "--quick" ] && quick=1

scripts/setup.sh

echo "== format check (.clang-format)"
mapfile -t sources < <(git ls-files '*.cc' '*.h' 2>/dev/null || find . -name '*.cc' -o -name '*.h')
clang-format --dry-run -Werror "${sources[@]}"

jobs="$(nproc)"
echo "== release build and tests"
scripts/build.sh release
ctest --preset release -j "$jobs"

echo "== byte compatibility with Ceph's own tool (more profiles than ../shared holds)"
if ! command -v ceph-erasure-code-tool >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q ceph-osd >/dev/null
fi
tests/ceph/ceph_side_by_side.sh build

echo "== fuzzing the OSD frame decoder (libFuzzer, bounded time)"
scripts/fuzz.sh "${ECSTORE_FUZZ_SECONDS:-60}"

if [ "$quick" -eq 0 ]; then
  echo "== asan-ubsan build and tests"
  scripts/build.sh asan-ubsan
  ctest --preset asan-ubsan -j "$jobs"
fi
echo "== all tests passed"
