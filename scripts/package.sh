#!/usr/bin/env bash
# The release: `ringside` built with the Swift standard library and Foundation linked statically,
# stripped, in dist/ringside-<version>-linux-<arch>.tar.gz with certs-test/, docs/, scenarios/,
# LICENSE and INSTALL. Its only dynamic libraries are the system's C ones (libc, nghttp2, OpenSSL,
# libcurl and theirs). Prints the tarball's path. The version is Sources/ringside/Version.swift's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
version=$(sed -n 's/^let ringsideVersion = "\(.*\)"$/\1/p' Sources/ringside/Version.swift)
[[ -n "$version" ]] || { echo "package: no version in Sources/ringside/Version.swift" >&2; exit 1; }
arch=$(uname -m)
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
cp -R certs-test docs scenarios LICENSE "$stage/$name/"
sed -e "s/VERSION/$version/" -e "s/ARCH/$arch/" packaging/INSTALL >"$stage/$name/INSTALL"
tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
echo "dist/$name.tar.gz"
