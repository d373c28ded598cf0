#!/usr/bin/env bash
# Mutation coverage of the scenario library: every requirement (a scenario that pins no provider)
# run against the reference provider, every naive profile, a curl-per-push exec provider and the
# Python http service with incident 2's mistake. Prints the matrix (✔ passed, ✘ failed, – not
# applicable) and fails unless the reference passes every requirement, every broken provider fails
# at least one, and every requirement is failed by at least one broken provider (a requirement
# nothing can fail proves nothing). Usage: bash scripts/conformance-matrix.sh [RINGSIDE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/debug/ringside}
[[ -x "$binary" ]] || { swift build --product ringside 2>&1 | tail -n 1; binary=.build/debug/ringside; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
profiles=$("$binary" run --help | tr -d '\n' | sed 's/.*naive one:\(.*\)); --provider .*/\1/' | tr ',' '\n' | tr -d ' ' | grep -v '^reference$')
curl='exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '"'"'{payload}'"'"' {url}/3/device/{token}'
run() { # name, then the provider option
    local name=$1
    shift
    "$binary" run --certs certs-test --jobs 4 --junit "$out/$name.xml" "$@" scenarios >"$out/$name.log" 2>&1 || true
    [[ -s "$out/$name.xml" ]] || { echo "conformance-matrix: $name did not run:" >&2; tail -n 5 "$out/$name.log" >&2; exit 3; }
}
run reference --provider reference
for profile in $profiles; do run "$profile" --provider "$profile"; done
run curl-per-push --provider "$curl"
run http-keeps-410 --provider-file Tests/providers/http-provider-keeps-410.ring
python3 - "$out" reference $profiles curl-per-push http-keeps-410 <<'PY'
import sys, xml.etree.ElementTree as ET
folder, providers = sys.argv[1], sys.argv[2:]
verdicts, requirements = {}, []
for provider in providers:
    for case in ET.parse(f"{folder}/{provider}.xml").getroot().iter("testcase"):
        skipped = case.find("skipped")
        if skipped is not None and "demonstration" in skipped.get("message", ""):
            continue
        path = case.get("classname").split("scenarios/", 1)[-1]
        if path not in requirements:
            requirements.append(path)
        verdicts[path, provider] = "–" if skipped is not None else "✘" if case.find("failure") is not None else "✔"
broken = providers[1:]
print("requirement".ljust(46) + " ".join(f"{i:>2}" for i in range(len(providers))))
for path in sorted(requirements):
    print(path[:45].ljust(46) + " ".join(f"{verdicts.get((path, p), '?'):>2}" for p in providers))
print()
for i, provider in enumerate(providers):
    failed = sum(verdicts.get((r, provider)) == "✘" for r in requirements)
    print(f"{i:>2} {provider}: fails {failed} of {len(requirements)}")
problems = [f"the reference fails {r}" for r in requirements if verdicts.get((r, "reference")) != "✔"]
problems += [f"{p} fails no requirement" for p in broken if not any(verdicts.get((r, p)) == "✘" for r in requirements)]
problems += [f"no broken provider fails {r}" for r in requirements if not any(verdicts.get((r, p)) == "✘" for p in broken)]
for problem in problems:
    print("conformance-matrix: " + problem, file=sys.stderr)
print(f"matrix: {len(requirements)} requirements, {len(broken)} broken providers, {len(problems)} problems")
sys.exit(1 if problems else 0)
PY
