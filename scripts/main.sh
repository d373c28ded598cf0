#!/usr/bin/env bash
# Ringside's main job, for now: starts the fake APNs with its world, adds a phone through the control
# API, sends Apple's VoIP push example with curl and a JWT signed by the test key, then two classic
# mistakes, and shows what APNs answered and what the phone did, in words.
# (The bundled scenario library replaces this once the scenario runner exists.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
ringside=.build/release/ringside
log=$(mktemp)
contract=$(mktemp)
"$ringside" serve --port 0 --profile voip-lint --seed 1 >"$contract" 2>"$log" &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log" "$contract"' EXIT
for _ in $(seq 50); do grep -q RINGSIDE_CONTROL_URL "$contract" && break; sleep 0.1; done
set -a; source "$contract"; set +a
echo "== the provider contract (ringside serve prints it)"
cat "$contract"

echo; echo "== a phone whose app reports calls at once (control API)"
curl -s -X POST "$RINGSIDE_CONTROL_URL/phones" -d '{"name": "alice", "apps": [
  {"bundleId": "com.ringside.testapp", "ios": "26.4", "behaviour": "reports-at-once"}]}' >/dev/null
token=$(curl -s "$RINGSIDE_CONTROL_URL/phones/0" | python3 -c 'import json,sys; print(json.load(sys.stdin)["apps"][0]["voipToken"])')
echo "alice's VoIP token: $token"

jwt=$("$ringside" token --key "$APNS_KEY_FILE" --key-id "$APNS_KEY_ID" --team-id "$APNS_TEAM_ID")
push() {
  local body status
  body=$(mktemp)
  status=$(curl -sS --http2 --cacert "$APNS_CA_FILE" -H "authorization: bearer $jwt" -H "apns-topic: $1" \
    -H "apns-push-type: voip" -H "apns-expiration: $2" -H "apns-priority: 10" \
    --data-binary "{\"aps\":{},\"callUUID\":\"$3\",\"handle\":\"bob\"}" \
    -o "$body" -w "%{http_code}" "$APNS_URL/3/device/$token")
  echo "HTTP/2 $status $(cat "$body")"
  rm -f "$body"
}
echo; echo "== Apple's VoIP example: topic $APNS_TOPIC.voip, push type voip, expiration 0"
push "$APNS_TOPIC.voip" 0 5f6c5d5e-0000-4000-8000-000000000001
echo; echo "== the same with the bare bundle id as topic (a classic VoIP mistake)"
push "$APNS_TOPIC" 0 5f6c5d5e-0000-4000-8000-000000000002
echo; echo "== the same with a non-zero expiration (the ghost-call mistake; refused by --profile voip-lint)"
push "$APNS_TOPIC.voip" 1900000000 5f6c5d5e-0000-4000-8000-000000000003
sleep 0.3
echo; echo "== what the phone did (GET /outcomes)"
curl -s "$RINGSIDE_CONTROL_URL/outcomes" | python3 -c '
import json, sys
for fate in json.load(sys.stdin):
    reason = " (" + fate["reason"] + ")" if fate.get("reason") else ""
    print("push %d: %s%s" % (fate["number"], fate["outcome"], reason))
    for step in fate["chain"]:
        print("   - " + step["text"])'
echo; echo "== what ringside serve logged"
cat "$log"
