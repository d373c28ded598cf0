#!/usr/bin/env bash
# The world's share of a push's CPU by perf's samples, beside bench/world.sh's clocks: the same
# WorldBench run (1,000,000 phones, h2load through the mock) under `perf record -e cpu-clock`.
# A sample counts as the world's when `SharedWorld.holding` (everything done with the world's lock
# held) is on its stack; the mock's CPU is every sample of its own threads (`ringside-*`: the event
# loops and the world's ticker). Wall time with the lock held, as world.sh also prints it, counts the
# moments a holder is preempted or the virtual CPU is stolen; a sample is taken only while the
# thread runs. Target: the world at most 5% of a push.
#
# usage: bash bench/world-profile.sh [PHONES] [PUSHES]      (defaults 1000000 and 200000)
#        WORLDBENCH=path/to/WorldBench bash bench/world-profile.sh    (a build kept aside, to compare)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "world-profile.sh needs perf (apt-get install linux-perf)" >&2; exit 2; }
bash scripts/setup.sh --test >/dev/null
bench=${WORLDBENCH:-}
if [ -z "$bench" ]; then
    swift build -c release --product WorldBench 2>&1 | tail -n 1
    bench=.build/release/WorldBench
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
perf record -q -e cpu-clock -F 4000 --call-graph fp -o "$work/perf.data" -- \
    "$bench" "${1:-1000000}" "${2:-200000}" certs-test
perf script -i "$work/perf.data" -F comm,ip,sym 2>/dev/null > "$work/samples.txt"
python3 - "$work/samples.txt" <<'PY'
import sys
mock = world = ticker = ticker_world = 0
for sample in open(sys.argv[1]).read().split("\n\n"):
    lines = sample.strip().split("\n")
    if not lines or not lines[0].strip().startswith("ringside-"):
        continue
    held = any("SharedWorld" in line and "holding" in line for line in lines[1:])
    mock += 1
    world += held
    if lines[0].split()[0] == "ringside-world":
        ticker += 1
        ticker_world += held
if mock == 0:
    sys.exit("no samples of the mock's threads: may perf sample this process?")
print(f"by perf's CPU samples: the mock {mock}, the world (lock held) {world} = {world / mock * 100:.1f}% of a push "
      f"(the pushes' visits {(world - ticker_world) / mock * 100:.1f}%, the ticker's {ticker_world / mock * 100:.1f}%; "
      f"the ticker's thread in all {ticker / mock * 100:.1f}%); target 5%")
PY
