#!/usr/bin/env bash
# Soak: a million valid VoIP pushes (h2load, TLS, a verified JWT, to a phone of the world) and, all the
# while, a mix of bad input (bench/bad_inputs.py) through one `ringside serve`; its resident memory is
# sampled. It should end within 10% of where it stood after the warm-up (issue 11).
#
# usage: bash bench/soak.sh [PUSHES] [WARMUP]     (defaults 1000000 and 200000; CONFIG=debug to skip
#        the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
pushes=${1:-1000000}
warmup=${2:-200000}
config=${CONFIG:-release}
bash scripts/setup.sh --test >/dev/null
swift build -c "$config" --product ringside 2>&1 | tail -n 1
binary=.build/$config/ringside

work=$(mktemp -d)
printf '{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}' >"$work/payload.json"
"$binary" serve --port 0 --quiet >"$work/contract" 2>"$work/serve.log" &
serve=$!
trap 'kill $bad 2>/dev/null || true; kill -INT $serve 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
bad=""
for _ in $(seq 50); do grep -q RINGSIDE_CONTROL_URL "$work/contract" && break; sleep 0.1; done
port=$(sed -n 's/^APNS_PORT=//p' "$work/contract")
control=$(sed -n 's/^RINGSIDE_CONTROL_URL=//p' "$work/contract")
# No per-token throttle: every push is accepted and enters the world (one phone, one call after another).
curl -s -X POST "$control/settings" -d '{"throttle": null}' >/dev/null
token=$(curl -s -X POST "$control/phones" -d '{"name": "soak"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["apps"][0]["voipToken"])')
jwt=$("$binary" token)
# A phone that stays offline holds one push for 30 days: it must not hold the whole history with it.
offline=$(curl -s -X POST "$control/phones" -d '{"name": "offline", "online": false}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["apps"][0]["voipToken"])')
curl -s -o /dev/null --http2 --cacert certs-test/ca.pem -H "authorization: bearer $jwt" \
  -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" -H "apns-expiration: $(($(date +%s) + 30 * 86400))" \
  --data-binary @"$work/payload.json" "https://127.0.0.1:$port/3/device/$offline"

rss() { awk '/VmRSS/ {print $2}' "/proc/$serve/status"; }
load() {
  h2load -n "$1" -c 10 -m 10 -d "$work/payload.json" -H "authorization: bearer $jwt" \
    -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" -H "apns-priority: 10" \
    -H "apns-expiration: 0" "https://127.0.0.1:$port/3/device/$token" 2>&1 | grep -E "^requests:|^status codes:|^finished"
}

echo "warm-up: $warmup pushes"
load "$warmup"
start=$(rss)
echo "resident after warm-up: $((start / 1024)) MB"
python3 bench/bad_inputs.py "$port" "${control##*:}" certs-test/ca.pem "$jwt" "$token" >"$work/bad.log" 2>&1 &
bad=$!
( while kill -0 $serve 2>/dev/null; do echo "$(date +%s) $(rss)"; sleep 2; done ) >"$work/rss" &
sampler=$!
echo "soak: $pushes pushes with bad input alongside"
load "$pushes"
kill $bad 2>/dev/null || true
kill $sampler 2>/dev/null || true
sleep 1
end=$(rss)
peak=$(awk '{print $2}' "$work/rss" | sort -n | tail -1)
echo "$(tail -n 1 "$work/bad.log" 2>/dev/null || echo "bad input: none")"
echo "world: $(curl -s -D - -o /dev/null "$control/outcomes?limit=1" | sed -n 's/^x-total-count: *//Ip' | tr -d '\r') pushes remembered"
echo "resident: after warm-up $((start / 1024)) MB, peak $((peak / 1024)) MB, at the end $((end / 1024)) MB"
ratio=$(awk -v a="$end" -v b="$start" 'BEGIN { printf "%.2f", a / b }')
kill -0 $serve 2>/dev/null && alive=yes || alive=no
echo "end / after warm-up: $ratio (within 10%: $(awk -v r="$ratio" 'BEGIN { print (r <= 1.10) ? "yes" : "no" }')); serve still running: $alive"
