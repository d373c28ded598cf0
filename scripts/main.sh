#!/usr/bin/env bash
# Ringside's main job, for now: starts the fake APNs, sends Apple's own VoIP push example with curl
# and a JWT signed by the test key, then the same push with two classic mistakes, and shows what the
# mock answered and logged. (The bundled scenario library replaces this once scenarios exist.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
ringside=.build/release/ringside
log=$(mktemp)
contract=$(mktemp)
"$ringside" serve --port 0 --profile voip-lint >"$contract" 2>"$log" &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log" "$contract"' EXIT
for _ in $(seq 50); do grep -q RINGSIDE_CONTROL_URL "$contract" && break; sleep 0.1; done
set -a; source "$contract"; set +a
echo "== the provider contract (ringside serve prints it)"
cat "$contract"
token=$(printf 'ab%.0s' $(seq 32))
jwt=$("$ringside" token --key "$APNS_KEY_FILE" --key-id "$APNS_KEY_ID" --team-id "$APNS_TEAM_ID")
push() {
  local body status
  body=$(mktemp)
  status=$(curl -sS --http2 --cacert "$APNS_CA_FILE" -H "authorization: bearer $jwt" -H "apns-topic: $1" \
    -H "apns-push-type: voip" -H "apns-expiration: $2" -H "apns-priority: 10" \
    --data-binary '{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}' \
    -o "$body" -w "%{http_code}" "$APNS_URL/3/device/$token")
  echo "HTTP/2 $status $(cat "$body")"
  rm -f "$body"
}
echo; echo "== Apple's VoIP example: topic $APNS_TOPIC.voip, push type voip, expiration 0"
push "$APNS_TOPIC.voip" 0
echo; echo "== the same with the bare bundle id as topic (a classic VoIP mistake)"
push "$APNS_TOPIC" 0
echo; echo "== the same with a non-zero expiration (the ghost-call mistake; refused by --profile voip-lint)"
push "$APNS_TOPIC.voip" 1900000000
sleep 0.2
echo; echo "== what ringside serve logged"
cat "$log"
