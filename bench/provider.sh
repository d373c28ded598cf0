#!/usr/bin/env bash
# 100,000 VoIP pushes from the reference provider's two clients against `ringside serve` — the
# built-in provider's nghttp2 session (`BulkSender`: each push submitted as a stream is free, as many
# streams as APNs's SETTINGS allow) and libcurl (`APNsClient`, up to 100 streams in flight) — next to
# h2load against the same mock in the same run with as many connections (-c N -m 100, the same
# requests): over one connection, then over two (the bulk sender drives both from one thread, as
# h2load does; libcurl a thread each). Target (issue 30): the nghttp2 client at 0.9 of h2load's
# rate or more; libcurl no slower than before.
# Last, libcurl's pushes against a mock with nghttp2's
# rapid-reset limit (--reset-limit 1000/33), which libcurl 7.88's resets of finished streams would
# trip after 1,000 pushes on a connection: the client lets each go after 900 and opens a fresh one,
# so every push is delivered once, none sent again (docs/validation.md, "Stream resets").
#
# usage: bash bench/provider.sh [PUSHES] [ROUNDS]       (defaults 100000 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."
pushes=${1:-100000}
rounds=${2:-3}
bash scripts/setup.sh --test >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
swift build -c release --product ProviderBench 2>&1 | tail -n 1
work=$(mktemp -d)
.build/release/ringside serve --port 0 --quiet >"$work/contract" 2>/dev/null &
server=$!
strict=
trap 'kill -INT $server $strict 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q RINGSIDE_CONTROL_URL "$work/contract" && break; sleep 0.1; done
url=$(sed -n 's/^APNS_URL=//p' "$work/contract")
token=$(printf 'ab%.0s' $(seq 32))
printf '{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}' >"$work/payload.json"
jwt=$(.build/release/ringside token)
for round in $(seq "$rounds"); do
  for connections in 1 2; do
    h2=$(h2load -n "$pushes" -c "$connections" -m 100 -d "$work/payload.json" -H "authorization: bearer $jwt" \
      -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" -H "apns-priority: 10" \
      -H "apns-expiration: 0" "$url/3/device/$token" 2>&1 | sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p')
    echo "round $round, $connections connection(s): h2load ${h2%.*} req/s"
    for client in nghttp2 curl; do
      provider=$(.build/release/ProviderBench "$url" certs-test/ca.pem "$pushes" certs-test 10000 "$connections" "$client")
      rate=$(sed -n 's/.*s, \([0-9]*\) pushes\/s.*/\1/p' <<<"$provider")
      echo "  $provider; ratio to h2load $(awk -v a="$rate" -v b="$h2" 'BEGIN { printf "%.2f", a / b }')"
    done
  done
done
.build/release/ringside serve --port 0 --quiet --reset-limit 1000/33 --keep 100000 >"$work/strict" 2>/dev/null &
strict=$!
for _ in $(seq 50); do grep -q RINGSIDE_CONTROL_URL "$work/strict" && break; sleep 0.1; done
# 20,000 pushes: few enough for the mock's transcript (`--keep 100000` events) to hold every one, so it can
# tell how many pushes APNs accepted twice (a stream accepted, its answer lost in the GOAWAY, sent again).
few=$((pushes < 20000 ? pushes : 20000))
echo "with --reset-limit 1000/33: $(.build/release/ProviderBench "$(sed -n 's/^APNS_URL=//p' "$work/strict")" \
  certs-test/ca.pem "$few" certs-test 10000 1)"
# Every page of the transcript (a page is at most 1,000 events; GOAWAYs and connections are events too).
python3 - "$(sed -n 's/^RINGSIDE_CONTROL_URL=//p' "$work/strict")" <<'PY'
import json, sys, urllib.request
base, ids, offset = sys.argv[1], [], 0
while True:
    with urllib.request.urlopen(f"{base}/transcript?offset={offset}&limit=1000") as response:
        total = int(response.headers["x-total-count"])
        page = json.load(response)
    ids += [e["apnsId"] for e in page if e.get("event") == "push" and e.get("status") == 200]
    offset += len(page)
    if not page or offset >= total:
        break
print(f"  the mock accepted {len(ids)} pushes, {len(set(ids))} distinct: {len(ids) - len(set(ids))} accepted twice")
PY
