#!/usr/bin/env bash
# A transcript FIFO whose reader stops reading must not stop `serve` (helper-6, session 17): 2,000
# pushes are all answered, the transcript says it stopped, and SIGTERM ends serve at once.
# usage: stalled_transcript.sh RINGSIDE CERTS   prints: answered=<N> stopped=<yes|no> exit=<seconds>
set -u
ringside=$1 certs=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkfifo "$work/ff"
sleep 30 <"$work/ff" &
reader=$!
"$ringside" serve --certs "$certs" --port 0 --quiet --transcript "$work/ff" >"$work/contract" 2>"$work/serve.err" &
serve=$!
for _ in $(seq 100); do grep -q APNS_CA_FILE "$work/contract" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^APNS_PORT=//p' "$work/contract")
ca=$(sed -n 's/^APNS_CA_FILE=//p' "$work/contract")
jwt=$("$ringside" token --certs "$certs")
token=$(printf 'ab%.0s' $(seq 32))
for _ in $(seq 2000); do echo "url = \"https://127.0.0.1:$port/3/device/$token\""; echo 'output = "/dev/null"'; done >"$work/urls"
answered=$(timeout 30 curl -s --no-progress-meter --http2 --parallel --parallel-max 50 --cacert "$ca" -H "authorization: bearer $jwt" \
  -H "apns-topic: com.ringside.testapp.voip" -H "apns-push-type: voip" --data-binary '{"aps":{}}' \
  -w '%{http_code}\n' -K "$work/urls" | grep -c '^200$')
start=$(date +%s.%N)
kill -TERM "$serve"
for _ in $(seq 150); do kill -0 "$serve" 2>/dev/null || break; sleep 0.1; done
end=$(date +%s.%N)
kill -KILL "$serve" "$reader" 2>/dev/null; wait 2>/dev/null
grep -q 'stopped: its reader read nothing' "$work/serve.err" && stopped=yes || stopped=no
echo "answered=$answered stopped=$stopped exit=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
