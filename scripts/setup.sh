#!/usr/bin/env bash
# Installs what Ringside needs on a fresh Debian 12 machine, only what is missing:
# the C libraries it links (nghttp2, OpenSSL, libcurl), pkg-config, and with --test the tools the
# tests and benchmarks drive (curl, h2load, nghttpd, headless chromium, a JDK for its HTTP/2 client,
# python3-h2 for the starter service, and from PyPI the clients docs/clients.md runs: aioapns,
# kalyke-apns, apns2-up, django-push-notifications and aapns), and with --package dpkg-dev, whose
# dpkg-shlibdeps computes the .deb's Depends (scripts/package.sh).
set -euo pipefail

# faketime: libfaketime, which moves an exec or http provider's clock with the scenario's (advance).
packages=(libnghttp2-dev libssl-dev libcurl4-openssl-dev pkg-config openssl faketime)
if [[ "${1:-}" == "--package" ]]; then
  packages+=(dpkg-dev)
fi
if [[ "${1:-}" == "--test" ]]; then
  # python3-h2: the HTTP/2 client of the starter service `ringside init` writes (system python3 too).
  # chromium-driver: Selenium drives the console's page in the browser (ConsoleTests).
  packages+=(curl nghttp2-client nghttp2-server python3 python3-pip python3-h2 chromium chromium-driver haproxy)
  # java.net.http.HttpClient: a client that reads only PKCS#8 RSA keys and .p12 bundles (JDK 11+).
  command -v java >/dev/null && java -version 2>&1 | grep -qE 'version "(1[1-9]|[2-9][0-9])' \
    || packages+=(openjdk-17-jdk-headless)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# python3 and pip may come from elsewhere (pyenv): accept them when they run.
if command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1; then
  kept=()
  for package in "${missing[@]}"; do
    [[ "$package" == python3 || "$package" == python3-pip ]] || kept+=("$package")
  done
  missing=("${kept[@]}")
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [[ "${1:-}" == "--test" ]]; then
  # attrs: aapns's one other dependency (below).
  pypi=(aioapns kalyke-apns apns2-up django-push-notifications attrs selenium)
  if ! python3 -c "import aioapns, h2, kalyke, apns2, django, push_notifications, attr, selenium" 2>/dev/null; then
    echo "setup: installing ${pypi[*]} (PyPI) for the third-party client tests" >&2
    python3 -m pip install -q "${pypi[@]}" 2>/dev/null \
      || python3 -m pip install -q --break-system-packages "${pypi[@]}"
  fi
  # aapns 23.7 pins h2<4 and attrs<24, which aioapns (h2>=4) cannot share; it runs on h2 4 and today's
  # attrs (ClientCookbookTests), so it comes without its pins.
  if ! python3 -c "import aapns.api" 2>/dev/null; then
    echo "setup: installing aapns (PyPI, without its dependency pins)" >&2
    python3 -m pip install -q --no-deps aapns 2>/dev/null \
      || python3 -m pip install -q --no-deps --break-system-packages aapns
  fi
fi
