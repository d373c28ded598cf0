#!/usr/bin/env bash
# The release as a user meets it (issue 14): scripts/package.sh's tarball unpacked into an empty
# folder and run with a minimal environment (PATH=/usr/bin:/bin, no RINGSIDE_CERTS, a working folder
# without certs-test/): ldd shows only system libraries; --version; serve, where one curl push gets
# 200 with the tarball's own credentials; run on a bundled scenario; and docs/ci.md's "Any other CI"
# recipe, word for word, fetching the tarball from a file:// URL, over a folder `ringside init` wrote.
# The tarball given as $1 (scripts/test.sh passes it, so the release is built once), or built here.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
if [[ $# -ge 1 ]]; then
  tarball=$(realpath "$1")
else
  tarball="$root/$(bash scripts/package.sh | head -n 1)"
fi
work=$(mktemp -d)
serve_pid=""
trap '[[ -n "$serve_pid" ]] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() {
  echo "tarball test: FAILED: $*" >&2
  exit 1
}
mkdir -p "$work/unpacked" "$work/elsewhere" "$work/repo"
tar -C "$work/unpacked" -xzf "$tarball"
dir=$(cd "$work"/unpacked/ringside-*/ && pwd)
bin="$dir/bin/ringside"
for part in bin/ringside certs-test/ca.pem docs/scenario-language.md docs/ci.md scenarios LICENSE INSTALL; do
  [[ -e "$dir/$part" ]] || fail "the tarball has no $part"
done
minimal=(env -i PATH=/usr/bin:/bin HOME="$work/elsewhere")
cd "$work/elsewhere"

echo "== ldd: only the system's C libraries" >&2
ldd "$bin" >"$work/ldd"
cat "$work/ldd" >&2
while read -r name arrow path rest; do
  [[ "$arrow" == "=>" ]] || continue
  [[ "$path" == /lib/* || "$path" == /usr/lib/* ]] || fail "links $name from $path"
done <"$work/ldd"
grep -q "libnghttp2" "$work/ldd" || fail "no libnghttp2 in ldd's list"

echo "== --version" >&2
"${minimal[@]}" "$bin" --version | tee "$work/version" >&2
grep -qE "^ringside [0-9]+\.[0-9]+\.[0-9]+$" "$work/version" || fail "--version prints no version"
grep -qE "^nghttp2 1\." "$work/version" && grep -q "^OpenSSL 3" "$work/version" && grep -qE "^libcurl [0-9]+\." "$work/version" \
  || fail "--version lacks the C libraries' versions"

echo "== serve, and one push with curl" >&2
"${minimal[@]}" "$bin" serve --port 0 --quiet >"$work/contract" 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 100); do grep -q RINGSIDE_CONTROL_URL "$work/contract" && break; sleep 0.1; done
grep -q RINGSIDE_CONTROL_URL "$work/contract" || fail "serve printed no contract: $(cat "$work/serve.log")"
set -a
source "$work/contract"
set +a
[[ "$APNS_CA_FILE" == "$dir/"* ]] || fail "serve uses credentials outside the tarball: $APNS_CA_FILE"
jwt=$("${minimal[@]}" "$bin" token)
status=$(curl -s -o "$work/body" -w '%{http_code}' --http2 --cacert "$APNS_CA_FILE" \
  -H "authorization: bearer $jwt" -H "apns-topic: $APNS_TOPIC.voip" -H "apns-push-type: voip" \
  -H "apns-priority: 10" -H "apns-expiration: 0" -d '{"aps":{}}' \
  "$APNS_URL/3/device/$(printf 'ab%.0s' $(seq 32))")
[[ "$status" == 200 ]] || fail "the push got $status: $(cat "$work/body")"
kill -INT "$serve_pid"
wait "$serve_pid" || fail "serve did not stop cleanly on Ctrl-C"
serve_pid=""

echo "== the binary alone finds no credentials (nothing reaches into the checkout it was built in)" >&2
mkdir -p "$work/alone"
cp "$bin" "$work/alone/ringside"
status=0
"${minimal[@]}" "$work/alone/ringside" serve --port 0 >"$work/alone.out" 2>&1 || status=$?
[[ $status -eq 3 ]] && grep -q "cannot find certs-test" "$work/alone.out" \
  || fail "a binary without certs-test/ beside it served anyway (exit $status): $(cat "$work/alone.out")"

echo "== run a bundled scenario" >&2
"${minimal[@]}" "$bin" run "$dir/scenarios/phone/01-a-call-rings.ring" | tee "$work/run" >&2
grep -q "scenarios: 1 passed, 0 failed" "$work/run" || fail "the bundled scenario did not pass"

echo "== docs/ci.md's recipe over a folder ringside init wrote" >&2
cd "$work/repo"
"${minimal[@]}" "$bin" init >/dev/null
recipe=$(awk '/^## Any other CI/{found=1} found && /^```sh$/{inside=1; next} inside && /^```$/{exit} inside' \
  "$root/docs/ci.md")
[[ -n "$recipe" ]] || fail "docs/ci.md has no 'Any other CI' recipe"
env -i PATH=/usr/bin:/bin HOME="$work/elsewhere" RINGSIDE_TARBALL_URL="file://$tarball" \
  bash -euo pipefail -c "$recipe" | tee "$work/recipe" >&2
grep -q "scenarios: 2 passed, 0 failed" "$work/recipe" || fail "the recipe's scenarios did not pass"
[[ -s junit.xml && -s report.html ]] || fail "the recipe wrote no junit.xml or report.html"
echo "tarball test: passed ($(du -h "$tarball" | cut -f1) $(basename "$tarball"))" >&2
