#!/usr/bin/env bash
# Runs the bundled scenario library three times over (30+ scenarios, some advancing the world clock
# by hours) with the release build and prints the wall time. Target: under 10 s on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for copy in 1 2 3; do for file in scenarios/*.ring; do cp "$file" "$work/$copy-$(basename "$file")"; done; done
start=$(date +%s.%N)
.build/release/ringside run --jobs 2 "$work" | tail -n 1
end=$(date +%s.%N)
echo "$(ls "$work" | wc -l) scenarios in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') s (target: under 10 s)"
