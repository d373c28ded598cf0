#!/usr/bin/env bash
# h2load against `ringside serve` and against nghttpd on this machine, in alternating rounds, with
# the same valid VoIP requests (TLS, a JWT the mock verifies with ES256, Apple's headers, a JSON
# body). Prints each round, the medians of successful requests per second, and the ratio.
# Each server runs one event-loop thread (nghttpd's default; `serve --workers 1`): the figure
# compares the work per request, not how threads share the cores h2load leaves.
#
# With `as-started`, `serve` runs as a user starts it instead: its default workers (one per two
# cores: h2load shares the machine, as a provider under test does), and its log (a
# line per request) on standard error, written to a file (issue 30: the log's cost). RINGSIDE=PATH
# measures another build of the binary (a "before" figure).
#
# usage: bash bench/h2load.sh [ROUNDS] [REQUESTS] [as-started]  (defaults 5, 100000; -c 10 -m 10)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
requests=${2:-100000}
mode=${3:-per-request}
bash scripts/setup.sh --test >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1

work=$(mktemp -d)
token=$(printf 'ab%.0s' $(seq 32))
mkdir -p "$work/docroot/3/device" && : >"$work/docroot/3/device/$token"
printf '{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}' >"$work/payload.json"

binary=${RINGSIDE:-.build/release/ringside}
if [[ "$mode" == as-started ]]; then
  "$binary" serve --port 0 >"$work/contract" 2>"$work/ringside.log" &
else
  "$binary" serve --port 0 --quiet --workers 1 >"$work/contract" 2>"$work/ringside.log" &
fi
ringside=$!
nghttpd -d "$work/docroot" 0 certs-test/server.key certs-test/server.pem >"$work/nghttpd.log" 2>&1 &
nghttpd=$!
trap 'kill -INT $ringside 2>/dev/null; kill $nghttpd 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q APNS_PORT "$work/contract" && break; sleep 0.1; done
ringside_port=$(sed -n 's/^APNS_PORT=//p' "$work/contract")
nghttpd_port=""
for _ in $(seq 50); do
  nghttpd_port=$(ss -ltnpH 2>/dev/null | grep "pid=$nghttpd," | awk '{print $4}' | sed 's/.*://' | head -n 1 || true)
  [[ -n "$nghttpd_port" ]] && break; sleep 0.1
done
jwt=$("$binary" token)

# Prints successful requests per second for one h2load run against PORT.
measure() {
  local out
  out=$(h2load -n "$requests" -c 10 -m 10 -d "$work/payload.json" \
    -H "authorization: bearer $jwt" -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" \
    -H "apns-priority: 10" -H "apns-expiration: 0" "https://127.0.0.1:$1/3/device/$token" 2>&1)
  local seconds succeeded
  seconds=$(sed -n 's/^finished in \([0-9.]*\)\(m\?s\).*/\1 \2/p' <<<"$out" | awk '{print ($2=="ms") ? $1/1000 : $1}')
  succeeded=$(sed -n 's/.* \([0-9]*\) succeeded.*/\1/p' <<<"$out")
  awk -v n="$succeeded" -v s="$seconds" 'BEGIN { printf "%.0f\n", n / s }'
}

measure "$ringside_port" >/dev/null   # warm-up: connections, caches, the JIT-free but cold binary
measure "$nghttpd_port" >/dev/null
r=(); n=()
for i in $(seq "$rounds"); do
  r+=("$(measure "$ringside_port")")
  n+=("$(measure "$nghttpd_port")")
  echo "round $i: ringside ${r[-1]} req/s, nghttpd ${n[-1]} req/s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
rm=$(median "${r[@]}"); nm=$(median "${n[@]}")
echo "median: ringside $rm req/s, nghttpd $nm req/s, ratio $(awk -v a="$rm" -v b="$nm" 'BEGIN { printf "%.2f", a / b }')"
if [[ "$mode" == as-started ]]; then
  echo "(h2load -n $requests -c 10 -m 10, TLS, valid VoIP requests with a verified JWT; serve as started: default workers, $(grep -c 'accepted' "$work/ringside.log") log lines written; nghttpd one thread; $(nproc) cores; h2load on the same machine)"
else
  echo "(h2load -n $requests -c 10 -m 10, TLS, valid VoIP requests with a verified JWT; one server thread each; $(nproc) cores; h2load on the same machine)"
fi
