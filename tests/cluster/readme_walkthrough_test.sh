#!/usr/bin/env bash
# The README's "Getting started" walk-through, run as written: the ```sh blocks between
# <!-- walkthrough:begin --> and <!-- walkthrough:end --> in README.md, in order, as one bash
# script (set -e, pipefail), so any command that exits non-zero fails the test, named with its
# line. It runs from a scratch root that looks like the repository to the commands
# (scripts/ -> the repository's, build/bin -> BIN_DIR), and the walk-through's cluster
# directory, /tmp/ecstore-demo, is replaced by one under that root, so a cluster a reader left
# running is not touched and two build trees can run the test at once. The walk-through is
# bounded (timeout) and whatever it started is stopped even when it fails. It also checks that
# the walk-through still covers the path the README promises (a 7-OSD cluster, profiles, pools,
# put/get/bench, osd out and progress, metrics, config set, direct reads, stop and resume).
# Usage: readme_walkthrough_test.sh BIN_DIR [README]   (README: default the repository's)
set -euo pipefail
bin="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
readme="${2:-$root/README.md}"
demo=/tmp/ecstore-demo   # the cluster directory the walk-through names
fail() { echo "FAIL: $*" >&2; exit 1; }

work="$(mktemp -d /tmp/ecstore-readme.XXXXXX)"
cleanup() {
  "$root/scripts/cluster.sh" stop --dir "$work/demo" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The walk-through's commands: the lines of the ```sh fences between the markers.
[ "$(grep -c '^<!-- walkthrough:begin -->$' "$readme")" = 1 ] || fail "no single begin marker"
[ "$(grep -c '^<!-- walkthrough:end -->$' "$readme")" = 1 ] || fail "no single end marker"
awk '/^<!-- walkthrough:begin -->$/ { on = 1; next }
     /^<!-- walkthrough:end -->$/ { on = 0; next }
     on && !code && /^```sh[[:space:]]*$/ { code = 1; next }
     code && /^```[[:space:]]*$/ { code = 0; next }
     code { print }' "$readme" > "$work/commands.sh"
[ -s "$work/commands.sh" ] || fail "no \`\`\`sh block between the walk-through markers"

# What the walk-through must cover (issue 29 item 7).
for want in "scripts/cluster.sh start --dir $demo --osds 7" "ec-admin osd erasure-code-profile set" \
            "plugin=isa" "plugin=jerasure" "plugin=clay" "ec-admin osd pool create" \
            "ec-rados -p" " put " " get " " bench " "ec-admin -s" "ec-admin osd out" \
            "ec-admin progress" "/metrics/cluster" "curl" "ec-admin config set" \
            "--direct-reads" "scripts/cluster.sh stop --dir $demo" "scripts/cluster.sh status"; do
  grep -qF -- "$want" "$work/commands.sh" || fail "the walk-through has no '$want'"
done
grep -qF "$demo" "$work/commands.sh" || fail "the walk-through does not use $demo"

mkdir -p "$work/build"
ln -s "$bin" "$work/build/bin"
ln -s "$root/scripts" "$work/scripts"
{
  echo 'set -eEuo pipefail'
  echo 'PS4="+ README: "'
  # shellcheck disable=SC2016  # expanded by the walk-through's shell
  echo 'trap '\''{ rc=$?; set +x; } 2> /dev/null; echo "FAIL: the README walk-through command \"$BASH_COMMAND\" exited $rc" >&2'\'' ERR'
  echo 'set -x'
  sed "s|$demo|$work/demo|g" "$work/commands.sh"
} > "$work/walkthrough.sh"

start=$SECONDS
# The cluster.sh launcher finds its programs in $work/build/bin (its scripts/ parent, logically).
# In the background, so that a signal to this script stops the walk-through (timeout passes it
# on) before the trap stops the cluster.
(cd "$work" && exec timeout -k 10 240 bash "$work/walkthrough.sh") &
child=$!
trap 'kill -TERM "$child" 2> /dev/null; wait "$child"; exit 1' INT TERM HUP
if ! wait "$child"; then
  fail "the README walk-through failed after $((SECONDS - start)) s (the trace above)"
fi
echo "README walk-through: $(grep -c . "$work/commands.sh") lines ran in $((SECONDS - start)) s"
