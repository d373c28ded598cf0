#!/usr/bin/env bash
# The test command (README, .ci/run): installs what is missing, checks formatting, builds with
# zero warnings, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
echo "== swift format lint" >&2
swift format lint --strict -r Sources Tests Package.swift
echo "== swift build (warnings are errors)" >&2
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 3
echo "== swift test" >&2
swift test --skip-build 2>&1
