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
source Tests/package/serve-push.sh
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
serve_and_push "$dir/" "the tarball"

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
# The checksum package.sh wrote beside the tarball (a tarball given as $1 may come without it).
sha256=$(cut -d' ' -f1 "$tarball.sha256" 2>/dev/null || sha256sum "$tarball" | cut -d' ' -f1)
[[ "$sha256" == "$(sha256sum "$tarball" | cut -d' ' -f1)" ]] || fail "the .sha256 beside the tarball is not its hash"
echo "== the recipe refuses a tarball whose hash is not the one published" >&2
status=0
env -i PATH=/usr/bin:/bin HOME="$work/elsewhere" RINGSIDE_TARBALL_URL="file://$tarball" \
  RINGSIDE_TARBALL_SHA256="$(printf '0%.0s' {1..64})" bash -euo pipefail -c "$recipe" >"$work/refused" 2>&1 || status=$?
[[ $status -ne 0 ]] && ! ls -d ringside-*/ >/dev/null 2>&1 || fail "the recipe unpacked a tarball with another hash (exit $status)"
rm -f ringside.tar.gz
echo "== the recipe with the published hash" >&2
env -i PATH=/usr/bin:/bin HOME="$work/elsewhere" RINGSIDE_TARBALL_URL="file://$tarball" RINGSIDE_TARBALL_SHA256="$sha256" \
  bash -euo pipefail -c "$recipe" | tee "$work/recipe" >&2
grep -q "scenarios: 2 passed, 0 failed" "$work/recipe" || fail "the recipe's scenarios did not pass"
[[ -s junit.xml && -s report.html ]] || fail "the recipe wrote no junit.xml or report.html"
echo "tarball test: passed ($(du -h "$tarball" | cut -f1) $(basename "$tarball"))" >&2
