#!/usr/bin/env bash
# The test command (README, .ci/run): installs what is missing, checks formatting, builds with
# zero warnings, runs every test, the examples' tests, the release's tests (its tarball and its .deb,
# from one build), then every fuzz target for a short count (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
echo "== swift format lint" >&2
swift format lint --strict -r Sources Tests Package.swift examples/swift-testing/{Package.swift,Sources,Tests}
echo "== swift build (warnings are errors)" >&2
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# Unit tests first (in memory: no socket, process or sleep), then the integration tests (loopback
# sockets, TLS, processes, third-party clients); Package.swift says which target is which.
unit='^(APNsTests|WorldTests|ScenarioLanguageTests|MockAPNsUnitTests|ProviderUnitTests|ScenarioTests|RingsideTests)\.'
for phase in unit integration; do
  echo "== swift test: $phase tests" >&2
  started=$SECONDS
  if [[ $phase == unit ]]; then selection=(--filter "$unit"); else selection=(--skip "$unit"); fi
  swift test --skip-build "${selection[@]}" 2>&1 | tee "$log" || status=$?
  # One plain closing line per phase for CI: Swift Testing's summary as "N passed, N failed".
  summary=$(grep -E "^. Test run with [0-9]+ tests?" "$log" | tail -n 1 || true)
  total=$(sed -n 's/.*Test run with \([0-9]*\) test.*/\1/p' <<<"$summary")
  # Failed tests, not the run's own "✘ Test run with … failed after" line.
  failed=$( (grep -E "^✘ Test .* failed after" "$log" || true) | grep -vc "^✘ Test run with" || true)
  [[ -n "$total" ]] && echo "$phase tests: $((total - failed)) passed, $failed failed, in $((SECONDS - started)) s"
done
echo "== examples/swift-testing: a provider's own Swift tests on RingsideTesting" >&2
swift build --package-path examples/swift-testing --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 1
swift test --package-path examples/swift-testing --skip-build 2>&1 | tail -n 3 || status=1
echo "== examples/python-service: an aioapns backend through the http adapter" >&2
bash examples/python-service/check.sh || status=1
echo "== the release (scripts/package.sh, built once): the tarball and the .deb, installed and used as a user would" >&2
if packages=$(bash scripts/package.sh); then
  echo "== the tarball (Tests/package/tarball.sh)" >&2
  bash Tests/package/tarball.sh "$(sed -n 1p <<<"$packages")" || status=1
  echo "== the .deb (Tests/package/deb.sh)" >&2
  bash Tests/package/deb.sh "$(sed -n 2p <<<"$packages")" || status=1
else
  echo "package: scripts/package.sh failed" >&2
  status=1
fi
echo "== fuzz (20,000 executions per target; bench/fuzz.sh runs 10^6)" >&2
bash scripts/fuzz.sh 20000 || status=1
exit "$status"
