#!/usr/bin/env bash
# Runs the whole test suite under a sanitizer: ThreadSanitizer (default) or AddressSanitizer, each in
# its own build folder (.build/tsan, .build/asan). Prints the findings' summaries and exits non-zero
# if there are any (or if a test fails).
# usage: bash scripts/sanitize.sh [thread|address] [swift test filter]
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-thread}
filter=${2:-}
folder=.build/${kind:0:1}san
log=$(mktemp)
bash scripts/setup.sh --test >/dev/null
swift build --build-tests --sanitize="$kind" --build-path "$folder" -Xswiftc -DSANITIZED 2>&1 | tail -n 1
# The tests start `ringside` and `RingsideFuzz` from .build/debug: build them plainly too.
swift build 2>&1 | tail -n 1
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 report_signal_unsafe=0"
# Swift's runtime keeps metadata for the process's life: not leaks worth failing on.
export ASAN_OPTIONS="detect_leaks=0"
status=0
swift test --skip-build --sanitize="$kind" --build-path "$folder" ${filter:+--filter "$filter"} >"$log" 2>&1 || status=$?
findings=$(grep -cE "^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer)" "$log" || true)
grep -E "^SUMMARY: (ThreadSanitizer|AddressSanitizer)" "$log" | sort | uniq -c | sort -rn | head -30 || true
grep -E "Test run with" "$log" | tail -n 1 || true
echo "$kind sanitizer: $findings findings (full log: $log)"
((findings == 0)) || status=1
exit $status
