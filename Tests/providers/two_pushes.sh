#!/bin/sh
# A tiny provider for `ringside record` tests: two pushes with curl, one to a malformed token.
JWT=$("$RINGSIDE_BINARY" token --key "$APNS_KEY_FILE" --key-id "$APNS_KEY_ID" --team-id "$APNS_TEAM_ID")
for token in abababababababababababababababababababababababababababababababab nothex; do
  curl -s -o /dev/null --http2 --cacert "$APNS_CA_FILE" -H "authorization: bearer $JWT" -H "apns-topic: $APNS_TOPIC.voip" \
    -H "apns-push-type: voip" -H "apns-expiration: 0" --data-binary '{"callUUID":"x"}' "$APNS_URL/3/device/$token"
done
