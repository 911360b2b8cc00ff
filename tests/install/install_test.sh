#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then what a user of that prefix does: the installed
# programs run from it with no environment variable and find their libraries and plugins there
# (not the build tree's), ec-tool encodes and decodes a file, a C++ program builds against the
# client library with `pkg-config --cflags --libs ecstore-rados` and runs, and the systemd units
# are there and pass `systemd-analyze verify` (skipped, saying why, without systemd-analyze), and
# the deployment templates render a host's config (docs/deploy.md; tests/cluster's
# deploy_guide_test runs a cluster on what they render).
# The prefix is removed at the end, pass or fail.
# Usage: install_test.sh BUILD_DIR CXX BUILD_BENCH(ON|OFF) [SANITIZERS]
set -euo pipefail
build="$(cd "$1" && pwd)"
cxx="$2"
bench="$3"
sanitize="${4:-}"

dir="$(mktemp -d /tmp/ecstore-install.XXXXXX)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
prefix="$dir/prefix"
start=$SECONDS
step() { echo "== $1 ($((SECONDS - start)) s)"; }
# The installed programs must need nothing from the environment, nor find the build tree's files.
unset EC_PLUGIN_DIR LD_LIBRARY_PATH EC_CONF

step "cmake --install --prefix $prefix"
cmake --install "$build" --prefix "$prefix" > "$dir/install.txt" 2>&1 ||
  fail "cmake --install: $(cat "$dir/install.txt")"

programs=(ec-osd ec-admin ec-rados ec-tool ec-osd-client)
[ "$bench" = ON ] &&
  programs+=(ec-bench ec-benchmark ec-clay-bench ec-store-bench ec-osd-bench tcp-pingpong)
for p in "${programs[@]}"; do [ -x "$prefix/bin/$p" ] || fail "bin/$p not installed"; done
extra="$(find "$prefix/bin" -type f | sed "s|$prefix/bin/||" | sort |
         grep -vxF -f <(printf '%s\n' "${programs[@]}") || true)"
[ -z "$extra" ] || fail "programs installed that should not be (test-only?): $extra"
for l in libec.so libecstore_common.so libecstore_rados.so; do
  [ -f "$prefix/lib/$l" ] || fail "lib/$l not installed"
done
plugins="$prefix/lib/ecstore/erasure-code"
for p in jerasure isa clay lrc shec; do
  [ -f "$plugins/libec_$p.so" ] || fail "plugin libec_$p.so not in lib/ecstore/erasure-code"
done
[ -z "$(find "$prefix" -name 'libec_test_*')" ] || fail "a test plugin was installed"
[ -z "$(find "$prefix" -name '*.a')" ] || fail "a static library was installed"

step "the programs resolve our libraries in the prefix"
for f in "${programs[@]/#/$prefix/bin/}" "$prefix"/lib/*.so "$plugins"/*.so; do
  out="$(ldd "$f")"
  ! grep -q "not found" <<< "$out" || fail "$f: $(grep "not found" <<< "$out")"
  ! grep -qF "$build" <<< "$out" || fail "$f resolves a library in the build tree: $out"
done
grep -qF "$prefix/bin/../lib/libec.so" <<< "$(ldd "$prefix/bin/ec-tool")" ||
  fail "ec-tool does not load the prefix's libec.so: $(ldd "$prefix/bin/ec-tool")"

step "every program runs: --version, ec-osd --help, ec-admin --help"
cd "$dir"  # not the build tree
for p in "${programs[@]}"; do
  "$prefix/bin/$p" --version > "$dir/version.txt" 2>&1 || fail "$p --version: $(cat "$dir/version.txt")"
done
"$prefix/bin/ec-osd" --help > "$dir/help.txt" || fail "ec-osd --help"
grep -q -- "--mkfs" "$dir/help.txt" || fail "ec-osd --help: $(cat "$dir/help.txt")"
"$prefix/bin/ec-admin" --help > "$dir/help.txt" || fail "ec-admin --help"
grep -q "erasure-code-profile" "$dir/help.txt" || fail "ec-admin --help: $(cat "$dir/help.txt")"

step "ec-tool finds the installed plugins and round-trips a file"
tool="$prefix/bin/ec-tool"
for p in jerasure isa clay lrc shec; do
  "$tool" test-plugin-exists "$p" || fail "ec-tool test-plugin-exists $p"
done
head -c 100000 /dev/urandom > "$dir/orig"
for profile in plugin=jerasure,technique=reed_sol_van,k=4,m=2 plugin=clay,k=4,m=2,d=5; do
  cp "$dir/orig" "$dir/obj"
  "$tool" encode "$profile" 4096 0,1,2,3,4,5 "$dir/obj" || fail "encode $profile"
  rm "$dir/obj" "$dir/obj.1"
  "$tool" decode "$profile" 4096 0,2,3,4,5 "$dir/obj" || fail "decode $profile"
  cmp -n 100000 "$dir/orig" "$dir/obj" || fail "decode $profile: not the bytes encoded"
  rm -f "$dir"/obj*
done
# The plugins really come from the prefix: without its plugin folder, none is found.
mv "$plugins" "$plugins.away"
if "$tool" test-plugin-exists jerasure > /dev/null 2>&1; then
  fail "ec-tool found jerasure with the prefix's plugin folder moved away"
fi
mv "$plugins.away" "$plugins"

step "a C++ program builds with pkg-config ecstore-rados and runs"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags="$(pkg-config --cflags --libs ecstore-rados)" || fail "pkg-config ecstore-rados"
echo "pkg-config --cflags --libs ecstore-rados: $flags"
cat > "$dir/client.cc" << 'CC'
#include <cluster/client/rados.h>

#include <cstdio>

int main() {
  // No cluster here: the call fails with the config file's error, through the installed library.
  auto options = ec::cluster::client::ClientOptionsFromConfig("/nonexistent/ecstore.conf");
  if (options.ok()) return 1;
  std::printf("%s\n", options.status().ToString().c_str());
  auto connect = &ec::cluster::client::Rados::Connect;
  return connect != nullptr ? 0 : 1;
}
CC
san=()
[ -n "$sanitize" ] && san=("-fsanitize=$sanitize")
# shellcheck disable=SC2086  # pkg-config's output is a list of flags
"$cxx" -std=c++20 -Wall -Wextra -Werror "${san[@]}" "$dir/client.cc" -o "$dir/client" $flags \
  -Wl,-rpath,"$prefix/lib" > "$dir/cc.txt" 2>&1 || fail "compile: $(cat "$dir/cc.txt")"
"$dir/client" > "$dir/client.txt" || fail "client program: $(cat "$dir/client.txt")"
grep -q "nonexistent" "$dir/client.txt" || fail "client program: $(cat "$dir/client.txt")"

step "systemd units"
units="$prefix/lib/systemd/system"
[ -f "$units/ec-osd@.service" ] || fail "lib/systemd/system/ec-osd@.service not installed"
[ -f "$units/ecstore.target" ] || fail "lib/systemd/system/ecstore.target not installed"
[ -f "$units/etcd-ecstore.service" ] || fail "lib/systemd/system/etcd-ecstore.service not installed"
grep -qxF "EnvironmentFile=/etc/ecstore/etcd.env" "$units/etcd-ecstore.service" ||
  fail "etcd-ecstore.service: $(grep EnvironmentFile "$units/etcd-ecstore.service")"
grep -qxF "ExecStart=$prefix/bin/ec-osd -c /etc/ecstore/ecstore.conf --id %i" "$units/ec-osd@.service" ||
  fail "ExecStart: $(grep ExecStart "$units/ec-osd@.service")"
if command -v systemd-analyze > /dev/null; then
  # It verifies a template through an instance (ec-osd@i); it only warns of an unknown key, so
  # any output at all fails too.
  (cd "$units" && systemd-analyze verify --man=no ./ec-osd@.service ./ecstore.target \
                                          ./etcd-ecstore.service) \
    > "$dir/verify.txt" 2>&1 || fail "systemd-analyze verify: $(cat "$dir/verify.txt")"
  [ ! -s "$dir/verify.txt" ] || fail "systemd-analyze verify says: $(cat "$dir/verify.txt")"
else
  echo "SKIP systemd-analyze verify: systemd-analyze is not installed (package systemd)"
fi

step "a host's config rendered from the installed templates (share/ecstore/deploy)"
deploy="$prefix/share/ecstore/deploy"
for f in render.sh ecstore.conf.in etcd.env.in; do
  [ -f "$deploy/$f" ] || fail "share/ecstore/deploy/$f not installed"
done
"$deploy/render.sh" --host node2 --addr 192.0.2.12 --out "$dir/etc" \
  --etcd node1=192.0.2.11,node2=192.0.2.12,node3=192.0.2.13 > "$dir/render.txt" ||
  fail "render.sh: $(cat "$dir/render.txt")"
grep -qxF "host = node2" "$dir/etc/ecstore.conf" || fail "rendered ecstore.conf: no 'host = node2'"
grep -qxF "ETCD_NAME=node2" "$dir/etc/etcd.env" || fail "rendered etcd.env: no ETCD_NAME=node2"
step "install test passed"
