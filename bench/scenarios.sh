#!/usr/bin/env bash
# Runs the whole bundled scenario library (every scenarios/**/*.ring, some advancing the world clock
# by hours or days) with the release build and --jobs 2, and prints the wall time. Target (issue 30):
# under 1.5 s on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
start=$(date +%s.%N)
.build/release/ringside run --jobs 2 scenarios | tail -n 1
end=$(date +%s.%N)
count=$(find scenarios -name '*.ring' | wc -l)
echo "$count scenarios in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') s with --jobs 2 (target: under 1.5 s)"
