#!/usr/bin/env bash
# The .deb as a user meets it (issue 29): scripts/package.sh's dist/ringside_<version>_<debarch>.deb
# (or the one given as $1, as scripts/test.sh passes it, so the release is built once). Its metadata
# (dpkg-deb --info: the control fields, Depends covering every library the binary needs; --contents:
# every file at its documented path, owned by root), then the package unpacked into a scratch root
# with dpkg -x and run from there with a minimal environment (the system's commands on PATH but no
# swift*, no LD_LIBRARY_PATH, no RINGSIDE_CERTS, a working folder without certs-test/): ldd shows only
# system libraries; --version; serve with the package's own credentials and one curl push; the main job,
# `ringside run <root>/usr/share/ringside/scenarios`, every scenario passing; `--library` finds the
# same folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
root_checkout=$PWD
if [[ $# -ge 1 ]]; then
  deb=$(realpath "$1")
else
  deb="$root_checkout/$(bash scripts/package.sh | tail -n 1)"
fi
[[ -f "$deb" && "$deb" == *.deb ]] || { echo "deb test: FAILED: no .deb at <$deb>" >&2; exit 1; }
version=$(sed -n 's/^let ringsideVersion = "\(.*\)"$/\1/p' Sources/ringside/Version.swift)
work=$(mktemp -d)
serve_pid=""
trap '[[ -n "$serve_pid" ]] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"' EXIT
source Tests/package/serve-push.sh
fail() {
  echo "deb test: FAILED: $*" >&2
  exit 1
}
[[ "$(basename "$deb")" == "ringside_${version}_$(dpkg --print-architecture).deb" ]] \
  || fail "the package is named $(basename "$deb"), not ringside_${version}_$(dpkg --print-architecture).deb"

echo "== dpkg-deb --info: the control fields" >&2
dpkg-deb --info "$deb" >&2
field() { dpkg-deb --field "$deb" "$1"; }
[[ "$(field Package)" == ringside ]] || fail "Package is <$(field Package)>"
[[ "$(field Version)" == "$version" ]] || fail "Version is <$(field Version)>, not $version"
[[ "$(field Architecture)" == "$(dpkg --print-architecture)" ]] || fail "Architecture is <$(field Architecture)>"
[[ "$(field Maintainer)" == *" <"*@*">" ]] || fail "Maintainer is <$(field Maintainer)>, not 'Name <email>'"
[[ -n "$(field Description)" ]] || fail "no Description"
depends=$(field Depends)
[[ "$depends" != *swift* ]] || fail "Depends names a Swift package: $depends"
# Each package Depends must name: the owners (dpkg -S) of the libraries the binary itself needs
# (readelf's NEEDED, found where ldd finds them), and the four named in the README.
names=$(tr ',|' '\n\n' <<<"$depends" | sed -E 's/^ *//; s/[ (].*//' | sort -u)
mkdir -p "$work/info"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/info" ./usr/bin/ringside
needed=$(readelf -d "$work/info/usr/bin/ringside" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[[ -n "$needed" ]] || fail "readelf shows no NEEDED library"
owners=(libc6 libnghttp2-14 libssl3 libcurl4)
for library in $needed; do
  path=$(ldd "$work/info/usr/bin/ringside" | awk -v l="$library" '$1 == l && $2 == "=>" { print $3 }')
  [[ -z "$path" ]] && [[ "$library" == ld-linux* ]] && continue
  [[ -n "$path" ]] || fail "ldd does not find $library"
  owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null) || fail "no package owns $path"
  owners+=("${owner%%:*}")
done
for owner in $(printf '%s\n' "${owners[@]}" | sort -u); do
  grep -qx "$owner" <<<"$names" || fail "Depends lacks $owner: $depends"
done
echo "Depends covers: $(printf '%s ' $(printf '%s\n' "${owners[@]}" | sort -u))" >&2

echo "== dpkg-deb --contents: the documented paths, owned by root" >&2
dpkg-deb --contents "$deb" >"$work/contents"
awk '{ print $2 }' "$work/contents" | grep -vx "root/root" && fail "a file is not owned by root/root"
grep -qE '^-rwxr-xr-x root/root .* \./usr/bin/ringside$' "$work/contents" || fail "no executable ./usr/bin/ringside"
for path in usr/share/ringside/certs-test/keys.json usr/share/ringside/certs-test/ca.pem \
  usr/share/ringside/docs/scenario-language.md usr/share/ringside/docs/ci.md \
  usr/share/ringside/scenarios/README.md usr/share/ringside/scenarios/phone/01-a-call-rings.ring \
  usr/share/doc/ringside/copyright; do
  grep -qE " \./$path\$" "$work/contents" || fail "the package has no /$path"
done
expected=$(find scenarios -name '*.ring' | wc -l)
packaged=$(grep -cE ' \./usr/share/ringside/scenarios/.*\.ring$' "$work/contents" || true)
[[ "$packaged" -eq "$expected" ]] || fail "the package has $packaged scenarios, the checkout $expected"
outside=$(awk '{ print $NF }' "$work/contents" | grep -vE '^\./$|^\./usr/$|^\./usr/bin/|^\./usr/share/$|^\./usr/share/ringside/|^\./usr/share/doc/$|^\./usr/share/doc/ringside/' || true)
[[ -z "$outside" ]] || fail "the package installs outside its paths: $outside"

echo "== dpkg -x into a scratch root" >&2
root="$work/root"
dpkg -x "$deb" "$root"
bin="$root/usr/bin/ringside"
share="$root/usr/share/ringside"
mkdir -p "$work/elsewhere" "$work/path"
cd "$work/elsewhere"
# PATH: the system's commands (curl, sh… for the scenarios' exec providers) without any swift*, in
# case a toolchain is installed in /usr/bin (the swift images do that).
for command in /usr/bin/* /bin/*; do
  name=${command##*/}
  [[ "$name" == swift* || -e "$work/path/$name" ]] || ln -s "$command" "$work/path/$name"
done
minimal=(env -i PATH="$work/path" HOME="$work/elsewhere")
"${minimal[@]}" bash -c 'command -v swift || command -v swiftc' && fail "the minimal PATH still has a Swift toolchain"

echo "== ldd: only the system's C libraries" >&2
ldd "$bin" >"$work/ldd"
cat "$work/ldd" >&2
grep -q swift "$work/ldd" && fail "the binary links a Swift library"
grep -q "not found" "$work/ldd" && fail "a library is not found"
while read -r name arrow path rest; do
  [[ "$arrow" == "=>" ]] || continue
  [[ "$path" == /lib/* || "$path" == /usr/lib/* ]] || fail "links $name from $path"
done <"$work/ldd"

echo "== --version" >&2
"${minimal[@]}" "$bin" --version | tee "$work/version" >&2
grep -qx "ringside $version" "$work/version" || fail "--version does not print ringside $version"

echo "== serve with the package's credentials, and one push with curl" >&2
serve_and_push "$share/certs-test/" "the package"

echo "== the main job: ringside run <root>/usr/share/ringside/scenarios" >&2
status=0
"${minimal[@]}" "$bin" run "$share/scenarios" >"$work/run" 2>&1 || status=$?
tail -n 3 "$work/run" >&2
[[ $status -eq 0 ]] || { cat "$work/run" >&2; fail "the main job exited $status"; }
grep -qE "^scenarios: [1-9][0-9]* passed, 0 failed$" "$work/run" || fail "the main job did not pass every scenario"

echo "== --library finds <root>/usr/share/ringside/scenarios" >&2
status=0
"${minimal[@]}" "$bin" coverage --library >"$work/coverage" 2>&1 || status=$?
[[ $status -le 1 ]] || fail "coverage --library exited $status: $(tail -n 5 "$work/coverage")"
grep -qF "$share/scenarios/" "$work/coverage" || fail "coverage --library did not read $share/scenarios"
"${minimal[@]}" "$bin" run --library --filter 01-a-call-rings | tee "$work/library" >&2
grep -q "scenarios: 1 passed, 0 failed" "$work/library" || fail "run --library did not run the packaged scenario"
echo "deb test: passed ($(du -h "$deb" | cut -f1) $(basename "$deb"))" >&2
