#!/usr/bin/env bash
# Every check, from a fresh Debian machine: installs the packages, checks formatting, builds and
# runs the whole suite in the release preset, checks bytes against Ceph's own tool, fuzzes the
# OSD frame decoder for a bounded time, and runs the suite again under ASan+UBSan (built in the
# background meanwhile). Prints how long each phase took.
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
# Both suites run one test more at a time than there are cores: the cluster tests spend most of
# their time waiting (on processes, timeouts, fsync); on 2 cores -j3 took the release suite from
# 694 s to 489 s and the ASan+UBSan one from ~800 s to 620-710 s. Under the sanitizers a thrash
# test takes two of those slots (tests/thrash/CMakeLists.txt: beside two other tests it once read
# an object at another version than the model's, a race still being chased; beside one it never
# has). (Builds use every core, no more.)
test_jobs=$((jobs + 1))
phase_start=$SECONDS
phase_done() { echo "== $1: $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }
# Runs a ctest preset; when tests fail, prints again where each failed (its gtest failures and
# the end of its output), last: a CI log shows its end, and ctest's summary names only the tests.
run_suite() {  # PRESET BUILD_DIR
  local status=0
  ctest --preset "$1" -j "$test_jobs" || status=$?
  [ "$status" -eq 0 ] && return 0
  local log="$2/Testing/Temporary/LastTest.log" failed="$2/Testing/Temporary/LastTestsFailed.log"
  if [ -f "$failed" ] && [ -f "$log" ]; then
    while IFS=: read -r _ name; do
      echo "== where $name failed (whole output: $log)"
      awk -v t="$name" '
        / Testing: / { on = (substr($0, index($0, " Testing: ") + 10) == t); next }
        on && /^<end of output>/ { on = 0 }
        on' "$log" > "$2/failed-test.out"
      grep -A 12 -E ': Failure|ERROR: AddressSanitizer|runtime error:' "$2/failed-test.out" | head -n 80
      echo "-- its last lines:"
      tail -n 15 "$2/failed-test.out"
    done < "$failed"
  fi
  return "$status"
}

echo "== release build and tests"
scripts/build.sh release
phase_done "release build"

# The sanitizer build compiles in the background, at the lowest CPU priority, while the release
# suite, Ceph's tool and the fuzzer run: the cluster tests mostly wait (on processes, timeouts,
# fsync), and a niced compiler only takes the cycles they leave (about 1/70 of a core when they
# want it all). It saves most of the wall time of the first half on a 2-core machine.
# The fuzzer (clang, a dozen files) builds the same way, beside it.
asan_pid="" fuzz_pid=""
stop_background() {
  [ -n "$asan_pid" ] && kill -- "-$asan_pid" 2> /dev/null
  [ -n "$fuzz_pid" ] && kill -- "-$fuzz_pid" 2> /dev/null
  true
}
# Waits for a background build; on failure prints the end of its log and stops.
wait_build() {  # WHAT PID LOG
  if ! wait "$2"; then
    tail -n 100 "$3"
    echo "== $1 build failed (whole log: $3)" >&2
    exit 1
  fi
}
mkdir -p build-fuzz
# Their own process groups (setsid), so that an early exit stops the compilers too.
setsid nice -n 19 scripts/fuzz.sh build > build-fuzz/build.log 2>&1 &
fuzz_pid=$!
trap stop_background EXIT
if [ "$quick" -eq 0 ]; then
  mkdir -p build-asan
  setsid nice -n 19 scripts/build.sh asan-ubsan > build-asan/build.log 2>&1 &
  asan_pid=$!
fi

run_suite release build
phase_done "release tests"

echo "== byte compatibility with Ceph's own tool (more profiles than ../shared holds)"
if ! command -v ceph-erasure-code-tool >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q ceph-osd >/dev/null
fi
tests/ceph/ceph_side_by_side.sh build
phase_done "byte compatibility"

echo "== fuzzing the OSD frame decoder (libFuzzer, bounded time)"
wait_build "the fuzzer's" "$fuzz_pid" build-fuzz/build.log
fuzz_pid=""
scripts/fuzz.sh run "${ECSTORE_FUZZ_SECONDS:-60}"
phase_done "fuzzing"

if [ "$quick" -eq 0 ]; then
  echo "== asan-ubsan build (started after the release build) and tests"
  wait_build "the asan-ubsan" "$asan_pid" build-asan/build.log
  asan_pid=""
  phase_done "asan-ubsan build (rest of it)"
  run_suite asan-ubsan build-asan
  phase_done "asan-ubsan tests"
fi
echo "== all tests passed"
