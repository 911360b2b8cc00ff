#!/usr/bin/env bash
# What one small operation costs a local cluster (CPU, context switches, messages, device bytes per
# operation), for one build or two side by side: see bench/tools/op_cost.py --help.
# Usage: bench/op_cost.sh [--base BUILD] [--reps N] [--secs S] [--out DIR] [--workloads ...] BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 bench/tools/op_cost.py "$@"
