#!/usr/bin/env bash
# Ringside's main job: the bundled scenario library (scenarios/*.ring) against the built-in
# reference provider. Each scenario gets a fake APNs on a free port with its own world of phones;
# the provider is driven through its steps; every expectation is checked; failures are explained.
# Installs what it needs first. Extra arguments go to `ringside run` (e.g. --provider priority-5).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
exec .build/release/ringside run "$@" scenarios
