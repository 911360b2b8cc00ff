#!/usr/bin/env bash
# A replicated pool, an RS(4,2) pool and an RS(4,2) pool with small objects replicated, side by
# side on one local cluster (issue 30): see bench/tools/pool_classes.py --help.
# Usage: bench/pool_classes.sh [--reps N] [--secs S] [--out DIR] [--small NAME=BYTES] BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 bench/tools/pool_classes.py "$@"
