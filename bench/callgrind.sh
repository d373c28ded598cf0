#!/usr/bin/env bash
# Instructions per request, counted by callgrind, for `ringside serve` and for nghttpd serving a
# static file, with the same h2load requests as bench/h2load.sh (TLS, a verified JWT). Each server
# runs twice, for SMALL and for LARGE requests; the difference divided by LARGE − SMALL leaves out
# start-up and the handshakes. Counts, not times: the same on a busy machine. `ringside serve` runs
# twice more as users start it, with its log line per request.
#
# usage: bash bench/callgrind.sh [SMALL] [LARGE] [OUT]   (defaults 2000, 12000; OUT keeps the
#                                                      callgrind files for callgrind_annotate)
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-2000}
large=${2:-12000}
out=${3:-}
bash scripts/setup.sh --test >/dev/null
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
swift build -c release --product ringside 2>&1 | tail -n 1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
token=$(printf 'ab%.0s' $(seq 32))
mkdir -p "$work/docroot/3/device" && : >"$work/docroot/3/device/$token"
printf '{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}' >"$work/payload.json"
jwt=$(.build/release/ringside token)
port=$((20000 + RANDOM % 20000))

# Prints the instructions callgrind counted in a server while h2load sent N requests.
count() {
  local name=$1 n=$2 pid
  shift 2
  valgrind --tool=callgrind --callgrind-out-file="$work/$name-$n.out" "$@" >"$work/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do ss -ltnH "sport = :$port" | grep -q . && break; sleep 0.1; done
  h2load -n "$n" -c 2 -m 10 -d "$work/payload.json" \
    -H "authorization: bearer $jwt" -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" \
    -H "apns-priority: 10" -H "apns-expiration: 0" "https://127.0.0.1:$port/3/device/$token" >"$work/h2load.log" 2>&1
  # Counted up to here: what the server does when it stops (freeing what it kept) is left out.
  callgrind_control --dump "$pid" >/dev/null 2>&1
  kill -TERM "$pid"
  wait "$pid" || true
  [[ -n "$out" ]] && mkdir -p "$out" && cp "$work/$name-$n.out.1" "$out/$name-$n.out"
  sed -n 's/^summary: //p; s/^totals: //p' "$work/$name-$n.out.1" | head -n 1
}

per_request() {
  local name=$1
  shift
  local a b
  a=$(count "$name" "$small" "$@")
  b=$(count "$name" "$large" "$@")
  awk -v a="$a" -v b="$b" -v n=$((large - small)) 'BEGIN { printf "%.0f", (b - a) / n }'
}

r=$(per_request ringside .build/release/ringside serve --port "$port" --quiet)
# As users start it: a log line per request (to a file here, as to a terminal or CI's log).
l=$(per_request ringside-log .build/release/ringside serve --port "$port")
n=$(per_request nghttpd nghttpd -d "$work/docroot" "$port" certs-test/server.key certs-test/server.pem)
echo "instructions per request: ringside $r, nghttpd $n, ratio $(awk -v a="$r" -v b="$n" 'BEGIN { printf "%.2f", a / b }')"
echo "as started (a log line per request): ringside $l, ratio $(awk -v a="$l" -v b="$n" 'BEGIN { printf "%.2f", a / b }')"
echo "(callgrind; h2load -c 2 -m 10, requests $small and $large, the difference per request)"
