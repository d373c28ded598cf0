#!/usr/bin/env bash
# Issue 48, point 6: is Ringside the bottleneck of a load? Runs a load scenario with the built-in
# provider as fast as it goes (every call judged, its latency recorded) and h2load against
# `ringside serve` from the same build, in the same run, and prints calls a second beside h2load's
# requests a second, and their ratio (target: at least 0.5).
#
# usage: bash bench/load.sh [CALLS]   (default 5000)
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-5000}
bash scripts/setup.sh --test >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
binary=.build/release/ringside
work=$(mktemp -d)
trap 'kill -INT ${serve:-0} 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

cat >"$work/load.ring" <<EOF
scenario: as fast as it goes
steps:
  - load: flat out
    phones: 20000
    calls: $calls
    rate: 100000/s
  - expect load: every call rings
    rang-at-least: 100%
EOF
start=$(date +%s.%N)
"$binary" run --load-csv "$work/load.csv" "$work/load.ring" >"$work/run.out" 2>&1 || { cat "$work/run.out"; exit 1; }
end=$(date +%s.%N)
# The seconds the calls took to place: the rows of the per-second series with a call placed.
placing=$(awk -F, 'NR > 1 && $3 > 0 { n++ } END { print n }' "$work/load.csv")
calls_per_second=$(awk -F, -v c="$calls" 'NR > 1 && $3 > 0 { n++; last = $2 } END { printf "%.0f", c / (last + 1) }' "$work/load.csv")

"$binary" serve --port 0 --quiet >"$work/contract" 2>"$work/serve.log" &
serve=$!
for _ in $(seq 50); do grep -q APNS_PORT "$work/contract" && break; sleep 0.1; done
port=$(sed -n 's/^APNS_PORT=//p' "$work/contract")
token=$(printf 'ab%.0s' $(seq 32))
printf '{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}' >"$work/payload.json"
out=$(h2load -n 100000 -c 10 -m 10 -d "$work/payload.json" -H "authorization: bearer $("$binary" token)" \
  -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" -H "apns-priority: 10" \
  -H "apns-expiration: 0" "https://127.0.0.1:$port/3/device/$token" 2>&1)
seconds=$(sed -n 's/^finished in \([0-9.]*\)\(m\?s\).*/\1 \2/p' <<<"$out" | awk '{print ($2=="ms") ? $1/1000 : $1}')
succeeded=$(sed -n 's/.* \([0-9]*\) succeeded.*/\1/p' <<<"$out")
h2load_rate=$(awk -v n="$succeeded" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
echo "load: $calls calls placed in about $placing s, $calls_per_second calls/s, every one judged ($(grep -c '✔' "$work/run.out") scenario passed; run $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s in all)"
echo "h2load: $h2load_rate req/s against serve from the same build"
echo "ratio: $(awk -v a="$calls_per_second" -v b="$h2load_rate" 'BEGIN { printf "%.3f", a / b }') (target: at least 0.5)"
