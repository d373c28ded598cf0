#!/usr/bin/env bash
# This example's test (run by scripts/test.sh): the scenarios pass against service.py, and each
# mistake SERVICE_MISTAKE can make fails the scenarios that are about it (joined with +), and only those.
# Uses the ringside on PATH, else the checkout's debug build.
set -euo pipefail
cd "$(dirname "$0")"
ringside=$(command -v ringside || echo ../../.build/debug/ringside)
"$ringside" run --jobs 2 scenarios
for case in keeps-dead-tokens:02-forgets-dead-tokens forgets-live-tokens:01-call-rings no-retry:03-retries-503 \
  priority-5:01-call-rings+03-retries-503 expiration-hour:04-offline-no-ghost client-per-push:01-call-rings; do
  mistake=${case%%:*} scenarios=${case#*:}
  status=0
  output=$(SERVICE_MISTAKE=$mistake "$ringside" run --jobs 2 scenarios) || status=$?
  failed=$(grep -c '^✘' <<<"$output" || true)
  expected=0
  missing=""
  for scenario in ${scenarios//+/ }; do
    expected=$((expected + 1))
    grep -q "^✘ .*$scenario.ring" <<<"$output" || missing+=" $scenario"
  done
  if [[ $status -ne 1 || $failed -ne $expected || -n $missing ]]; then
    echo "python-service: with SERVICE_MISTAKE=$mistake, ${scenarios//+/ and } should fail alone (exit $status):" >&2
    echo "$output" >&2
    exit 1
  fi
  echo "python-service: SERVICE_MISTAKE=$mistake fails ${scenarios//+/ and }, as it must" >&2
done
