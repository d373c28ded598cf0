#!/usr/bin/env bash
# The long fuzz run for the closing notes: every target for 10^6 executions (or RUNS), two at a time
# at low priority. Prints one line per target: executions, seconds, coverage, crashes.
# usage: bash bench/fuzz.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
bash scripts/fuzz.sh 1 http2 >/dev/null  # build once
targets=(scenario jwt transcript request certificate control http2 payload)
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} nice -n 19 bash scripts/fuzz.sh "$runs" {}
