#!/usr/bin/env bash
# The release, from one build of `ringside` with the Swift standard library and Foundation linked
# statically, stripped, in two forms (issue 14, issue 29):
#   dist/ringside-<version>-linux-<arch>.tar.gz   bin/ringside with certs-test/, docs/, scenarios/,
#                                                 LICENSE and INSTALL beside bin/;
#   dist/ringside_<version>_<debarch>.deb         /usr/bin/ringside, /usr/share/ringside/{certs-test,
#                                                 docs,scenarios}/, /usr/share/doc/ringside/copyright;
#                                                 Depends computed by dpkg-shlibdeps from the binary.
# Either way the binary finds certs-test/ and scenarios/ from its own path (ReleaseLayout.swift).
# Its only dynamic libraries are the system's C ones (libc, nghttp2, OpenSSL, libcurl and theirs).
# Prints the tarball's path, then the .deb's. The version is Sources/ringside/Version.swift's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --package >/dev/null
version=$(sed -n 's/^let ringsideVersion = "\(.*\)"$/\1/p' Sources/ringside/Version.swift)
[[ -n "$version" ]] || { echo "package: no version in Sources/ringside/Version.swift" >&2; exit 1; }
arch=$(uname -m)
debarch=$(dpkg --print-architecture)
name="ringside-$version-linux-$arch"
swift build -c release --product ringside --static-swift-stdlib 2>&1 | tail -n 1 >&2
if ldd .build/release/ringside | grep -q swift; then
  echo "package: the binary still links a Swift library dynamically:" >&2
  ldd .build/release/ringside | grep swift >&2
  exit 1
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/bin" dist
cp .build/release/ringside "$stage/$name/bin/"
strip "$stage/$name/bin/ringside"

# The tarball.
cp -R certs-test docs scenarios LICENSE "$stage/$name/"
sed -e "s/VERSION/$version/g" -e "s/ARCH/$arch/g" packaging/INSTALL >"$stage/$name/INSTALL"
tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
# Its checksum, for CI jobs that fetch it (docs/ci.md: RINGSIDE_TARBALL_SHA256, `sha256sum -c`).
(cd dist && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")

# The .deb: the same stripped binary and files, laid out for /usr; files 0644, folders and the
# binary 0755, all owned by root (--root-owner-group), whoever builds it.
root="$stage/deb"
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/ringside" "$root/usr/share/doc/ringside"
cp "$stage/$name/bin/ringside" "$root/usr/bin/ringside"
cp -R certs-test docs scenarios "$root/usr/share/ringside/"
cp LICENSE "$root/usr/share/doc/ringside/copyright"
find "$root" -type d -exec chmod 0755 {} +
find "$root/usr" -type f -exec chmod 0644 {} +
chmod 0755 "$root/usr/bin/ringside"
# dpkg-shlibdeps reads the binary's NEEDED libraries and the symbols files of the packages that own
# them: Depends names each with the lowest version that has every symbol used (libc6, libnghttp2-14,
# libssl3, libcurl4 and the C++ runtime on Debian 12). It wants a debian/control to stand in.
mkdir -p "$stage/shlibs/debian"
printf 'Source: ringside\n\nPackage: ringside\nArchitecture: any\n' >"$stage/shlibs/debian/control"
depends=$(cd "$stage/shlibs" && dpkg-shlibdeps -O "$root/usr/bin/ringside" 2>"$stage/shlibs.log" \
  | sed -n 's/^shlibs:Depends=//p') || { cat "$stage/shlibs.log" >&2; exit 1; }
[[ -n "$depends" ]] || { echo "package: dpkg-shlibdeps found no dependencies" >&2; cat "$stage/shlibs.log" >&2; exit 1; }
cat >"$root/DEBIAN/control" <<CONTROL
Package: ringside
Version: $version
Architecture: $debarch
Maintainer: ${RINGSIDE_MAINTAINER:-The Ringside authors <maintainers@users.noreply.a-seed-798ce22a.example>}
Installed-Size: $(du -sk "$root/usr" | cut -f1)
Depends: $depends
Recommends: curl, faketime
Suggests: python3, python3-h2, openssl
Section: devel
Priority: optional
Description: fake APNs for testing VoIP push providers
 Ringside tells a calling app's backend whether its VoIP pushes really make a
 phone ring: it runs a fake APNs over real HTTP/2 and TLS that a push provider
 talks to unmodified, judges every header as Apple documents it, and explains
 every answer.
 .
 The bundled scenario library is in /usr/share/ringside/scenarios
 (ringside run --library), the test credentials ringside uses by default in
 /usr/share/ringside/certs-test (never valid outside tests) and the
 documentation in /usr/share/ringside/docs. Scenarios whose provider is a curl
 command need curl; the starter service of ringside init needs python3-h2.
CONTROL
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
deb="dist/ringside_${version}_${debarch}.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" >&2

echo "dist/$name.tar.gz"
echo "$deb"
