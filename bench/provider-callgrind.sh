#!/usr/bin/env bash
# Instructions per push, counted by callgrind, of the reference provider's nghttp2 client
# (`ProviderBench … nghttp2`: the built-in provider's transport) and of h2load sending the same
# requests over one connection to the same `ringside serve`. Each client runs for SMALL and for LARGE
# pushes; the difference divided by LARGE − SMALL leaves out start-up, the handshake and the JWT.
# Counts, not times: the same on a busy machine (bench/provider.sh gives the rates).
# Then the other side: the mock's instructions per request under each client (2,000 and 12,000
# requests). h2load repeats one header block, which a connection reads once; the provider sends a
# new apns-id with each push, as real providers do, so the mock's cost under it is the one users meet.
#
# usage: bash bench/provider-callgrind.sh [SMALL] [LARGE]   (defaults 10000, 40000)
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-10000}
large=${2:-40000}
bash scripts/setup.sh --test >/dev/null
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1
swift build -c release --product ProviderBench 2>&1 | tail -n 1
work=$(mktemp -d)
.build/release/ringside serve --port 0 --quiet --keep 10 >"$work/contract" 2>/dev/null &
server=$!
trap 'kill -INT $server 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q RINGSIDE_CONTROL_URL "$work/contract" && break; sleep 0.1; done
url=$(sed -n 's/^APNS_URL=//p' "$work/contract")
token=$(printf 'ab%.0s' $(seq 32))
printf '{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}' >"$work/payload.json"
jwt=$(.build/release/ringside token)

# Prints the instructions callgrind counted in one client run.
count() {
  local out=$work/$1.out
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>&1
  sed -n 's/^summary: //p; s/^totals: //p' "$out" | head -n 1
}
provider() { count "provider-$1" .build/release/ProviderBench "$url" certs-test/ca.pem "$1" certs-test 10000 1 nghttp2; }
h2load_run() {
  count "h2load-$1" h2load -n "$1" -c 1 -m 100 -d "$work/payload.json" -H "authorization: bearer $jwt" \
    -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" -H "apns-priority: 10" \
    -H "apns-expiration: 0" "$url/3/device/$token"
}
per_push() { awk -v a="$1" -v b="$2" -v n=$((large - small)) 'BEGIN { printf "%.0f", (b - a) / n }'; }
p=$(per_push "$(provider "$small")" "$(provider "$large")")
h=$(per_push "$(h2load_run "$small")" "$(h2load_run "$large")")
echo "client instructions per push: provider (nghttp2) $p, h2load $h; h2load/provider $(awk -v a="$h" -v b="$p" 'BEGIN { printf "%.2f", a / b }')"
echo "(callgrind; one connection, pushes $small and $large, the difference per push)"

# The mock under callgrind, each client outside it.
port=$((20000 + RANDOM % 20000))
mock_count() {
  local client=$1 n=$2 pid
  valgrind --tool=callgrind --callgrind-out-file="$work/mock-$client-$n.out" \
    .build/release/ringside serve --port "$port" --quiet >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 300); do ss -ltnH "sport = :$port" | grep -q . && break; sleep 0.1; done
  if [[ $client == provider ]]; then
    .build/release/ProviderBench "https://127.0.0.1:$port" certs-test/ca.pem "$n" certs-test 10000 1 nghttp2 >/dev/null
  else
    h2load -n "$n" -c 1 -m 100 -d "$work/payload.json" -H "authorization: bearer $jwt" \
      -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" -H "apns-priority: 10" \
      -H "apns-expiration: 0" "https://127.0.0.1:$port/3/device/$token" >/dev/null
  fi
  callgrind_control --dump "$pid" >/dev/null 2>&1
  kill -TERM "$pid"
  wait "$pid" || true
  sed -n 's/^summary: //p; s/^totals: //p' "$work/mock-$client-$n.out.1" | head -n 1
}
mock_per_request() {
  awk -v a="$(mock_count "$1" 2000)" -v b="$(mock_count "$1" 12000)" 'BEGIN { printf "%.0f", (b - a) / 10000 }'
}
mp=$(mock_per_request provider)
mh=$(mock_per_request h2load)
echo "the mock's instructions per request: under the provider $mp, under h2load $mh; provider/h2load $(awk -v a="$mp" -v b="$mh" 'BEGIN { printf "%.2f", a / b }')"
echo "(callgrind; one connection, requests 2000 and 12000, the difference per request)"
