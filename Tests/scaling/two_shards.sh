#!/usr/bin/env bash
# docs/scaling.md, the part that runs on one machine: two mocks, each owning a share of the phones
# by token prefix (`serve --token-prefix 0` and `8`), behind HAProxy (Debian's `haproxy`), which
# routes /3/device/0… and /3/device/8… over HTTP/2. For each share, a phone is added on its own
# mock, a VoIP push goes through the proxy with TLS, and the line printed says what the proxy
# answered and how the push ended on that mock's phone:
#   share 0: 200 rang
#   share 8: 200 rang
#   cross: 200, 0 push reached a phone   (share 8's token straight to share 0's mock)
# usage: Tests/scaling/two_shards.sh RINGSIDE CERTS
set -euo pipefail
ringside=$1
certs=$2
command -v haproxy >/dev/null || { echo "two_shards: haproxy is not installed (apt-get install haproxy)" >&2; exit 2; }
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

contract() { sed -n "s/^$2=//p" "$work/$1.out" | tr -d "'"; }
for share in 0 8; do
  "$ringside" serve --plaintext --port 0 --token-prefix "$share" --quiet --certs "$certs" \
    >"$work/$share.out" 2>"$work/$share.err" &
  pids+=($!)
  for _ in $(seq 200); do grep -q RINGSIDE_CONTROL_URL "$work/$share.out" && break; sleep 0.05; done
  grep -q RINGSIDE_CONTROL_URL "$work/$share.out" || { cat "$work/$share.err" >&2; exit 1; }
done
front=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat "$certs/server.pem" "$certs/server.key" >"$work/front.pem"
cat >"$work/haproxy.cfg" <<EOF
defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend apns
  bind 127.0.0.1:$front ssl crt $work/front.pem alpn h2
  use_backend share0 if { path_beg /3/device/0 }
  use_backend share8 if { path_beg /3/device/8 }
backend share0
  # One backend connection per provider connection: APNs judges a JWT per connection.
  http-reuse never
  server mock0 127.0.0.1:$(contract 0 APNS_PORT) proto h2
backend share8
  http-reuse never
  server mock8 127.0.0.1:$(contract 8 APNS_PORT) proto h2
EOF
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$front") 2>/dev/null && break; sleep 0.05; done

jwt=$("$ringside" token --certs "$certs")
push() { # URL CA… → status
  curl -s -o /dev/null -w '%{http_code}' --http2 "${@:2}" -H "authorization: bearer $jwt" \
    -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" -H "apns-expiration: 0" \
    --data-binary '{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"bob"}' "$1"
}
declare -A tokens
for share in 0 8; do
  control=$(contract "$share" RINGSIDE_CONTROL_URL)
  tokens[$share]=$(curl -s -X POST "$control/phones" -d '{"name":"alice"}' \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["apps"][0]["voipToken"])')
  status=$(push "https://localhost:$front/3/device/${tokens[$share]}" --cacert "$certs/ca.pem" \
    --resolve "localhost:$front:127.0.0.1")
  outcome=none
  for _ in $(seq 40); do
    outcome=$(curl -s "$control/outcomes" | python3 -c 'import json, sys; o = json.load(sys.stdin); print(o[-1]["outcome"] if o else "none")')
    [[ $outcome != none && $outcome != pending ]] && break
    sleep 0.05
  done
  echo "share $share: $status $outcome"
done
# The routing matters: share 8's token sent straight to share 0's mock reaches no phone there
# (`serve` accepts a token it did not issue, and nothing rings: its world has no push more).
count() { curl -s "$(contract 0 RINGSIDE_CONTROL_URL)/outcomes" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }
before=$(count)
status=$(push "http://127.0.0.1:$(contract 0 APNS_PORT)/3/device/${tokens[8]}" --http2-prior-knowledge)
sleep 0.3
echo "cross: $status, $(($(count) - before)) push reached a phone"
