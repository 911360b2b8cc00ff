#!/usr/bin/env bash
# How peering after a restart, recovery, listing and the OSD's memory grow with the objects an
# OSD holds (issue 31 item 5): see bench/tools/scale.py --help.
# Usage: bench/scale.sh [--levels 1000,10000,100000] [--pgs N] [--missed W] [--out DIR] BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 bench/tools/scale.py "$@"
