#!/usr/bin/env bash
# Time to a verdict (issue 45, G): the bundled library against the built-in provider and against
# `ringside init`'s stand-in service (an http provider, through --provider-file), both at the
# default --jobs, in the same run, and the ratio of the two. Target: the stand-in within 10x.
#
# usage: bash bench/standin.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
ringside=$PWD/.build/release/ringside
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$ringside" init ringside >/dev/null)
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$work/out" 2>&1 || true
  end=$(date +%s.%N)
  tail -n 1 "$work/out" >&2
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}
builtin=$(seconds "$ringside" run scenarios)
standin=$(seconds "$ringside" run --provider-file "$work/ringside/provider.ring" scenarios)
echo "built-in provider: $builtin s; init's stand-in: $standin s; ratio $(awk -v a="$builtin" -v b="$standin" 'BEGIN { printf "%.1f", b / a }')x (target: at most 10x)"
