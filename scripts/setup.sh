#!/usr/bin/env bash
# Installs the Debian packages ecstore builds with (design.md lists them). Safe to re-run.
# Runs apt-get as root, through sudo when not root. No terminal needed.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config clang-format clang libclang-rt-14-dev
  libisal-dev libjerasure-dev libgf-complete-dev
  libboost-dev libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev libyaml-cpp-dev
  librocksdb-dev liburing-dev libssl-dev
  etcd-server etcd-client
  libgtest-dev libgmock-dev libbenchmark-dev
  iproute2 python3 curl openssl
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -q
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
