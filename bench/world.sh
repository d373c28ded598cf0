#!/usr/bin/env bash
# Registers 1,000,000 phones in the world, pushes through the world alone and through the mock
# (h2load, TLS, verified JWTs), and prints resident memory, pushes per second and the world's share
# of a push's CPU (lock held: the push's visit by the wall clock, the ticker's by its CPU clock; the
# wall clock alone beside it). Targets: 1,000,000 phones in 400 MB; the world at most 5% of a push.
# The push's visit by the wall clock also counts preemptions inside the lock: bench/world-profile.sh
# counts the same share in perf's CPU samples.
#
# usage: bash bench/world.sh [PHONES] [PUSHES]      (defaults 1000000 and 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test >/dev/null
swift build -c release --product WorldBench 2>&1 | tail -n 1
.build/release/WorldBench "${1:-1000000}" "${2:-200000}" certs-test
