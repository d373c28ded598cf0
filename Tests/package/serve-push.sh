# Sourced by tarball.sh and deb.sh: starts the installed `ringside serve` as a user would, sends one
# VoIP push with curl and the contract it printed, and stops it with Ctrl-C.
# Uses the caller's `minimal` (a bare environment), `bin`, `work`, `serve_pid` and `fail`.
#
# serve_and_push WHERE PLACE: the contract's CA must lie under WHERE (the package's own credentials);
# PLACE names it in the failure ("the tarball", "the package").
serve_and_push() {
  local where=$1 place=$2 jwt status
  "${minimal[@]}" "$bin" serve --port 0 --quiet >"$work/contract" 2>"$work/serve.log" &
  serve_pid=$!
  for _ in $(seq 100); do grep -q RINGSIDE_CONTROL_URL "$work/contract" && break; sleep 0.1; done
  grep -q RINGSIDE_CONTROL_URL "$work/contract" || fail "serve printed no contract: $(cat "$work/serve.log")"
  set -a
  source "$work/contract"
  set +a
  [[ "$APNS_CA_FILE" == "$where"* ]] || fail "serve uses credentials outside $place: $APNS_CA_FILE"
  jwt=$("${minimal[@]}" "$bin" token)
  status=$(curl -s -o "$work/body" -w '%{http_code}' --http2 --cacert "$APNS_CA_FILE" \
    -H "authorization: bearer $jwt" -H "apns-topic: $APNS_TOPIC.voip" -H "apns-push-type: voip" \
    -H "apns-priority: 10" -H "apns-expiration: 0" -d '{"aps":{}}' \
    "$APNS_URL/3/device/$(printf 'ab%.0s' $(seq 32))")
  [[ "$status" == 200 ]] || fail "the push got $status: $(cat "$work/body")"
  kill -INT "$serve_pid"
  wait "$serve_pid" || fail "serve did not stop cleanly on Ctrl-C"
  serve_pid=""
}
