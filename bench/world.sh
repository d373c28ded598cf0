#!/usr/bin/env bash
# Registers 1,000,000 phones in the world, pushes through the world alone and through the mock
# (h2load, TLS, verified JWTs), and prints resident memory, pushes per second and the world's share
# of a push's time. Targets: under 1 GiB resident; the world under 10% of a push through the mock.
#
# usage: bash bench/world.sh [PHONES] [PUSHES]      (defaults 1000000 and 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test >/dev/null
swift build -c release --product WorldBench 2>&1 | tail -n 1
.build/release/WorldBench "${1:-1000000}" "${2:-200000}" certs-test
