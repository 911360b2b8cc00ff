#!/usr/bin/env bash
# What the benchmark scripts need beyond the build (scripts/setup.sh): gnuplot for the plots and
# Ceph's ceph-erasure-code-tool (package ceph-osd) for compare_ceph.sh, fio for
# compare_store_fio.sh. Debian packages; run as
# root. Safe to run again: installs only what is missing.
set -euo pipefail
need=()
command -v gnuplot >/dev/null 2>&1 || need+=(gnuplot-nox)
command -v ceph-erasure-code-tool >/dev/null 2>&1 || need+=(ceph-osd)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v fio >/dev/null 2>&1 || need+=(fio)
if ((${#need[@]})); then
  echo "bench/setup.sh: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
