#!/usr/bin/env bash
# The client conformance table (issue 45; Autobahn|Testsuite's idea for APNs clients): for each real
# APNs client from PyPI, the same small provider service built on it as its docs say
# (Tests/clients/client_service.py) runs the whole scenario library; the table is requirement ×
# client, each cell passed, failed (with the first cause of the failure) or n/a (written for the
# other authentication). docs/clients.md shows it.
#
# usage: bash scripts/client-conformance.sh [--runs N] [CLIENT…]   (default: 1 run, all five clients)
# Prints the table as Markdown. With
# --runs N each client runs the library N times: a cell that differs between runs is shown as
# unstable, with each verdict's count (a cell is a test: it must say the same every time).
set -euo pipefail
cd "$(dirname "$0")/.."
# $RINGSIDE when set, else the checkout's debug build, else the ringside on PATH.
ringside=${RINGSIDE:-.build/debug/ringside}
[[ -x $ringside ]] || ringside=$(command -v ringside)
runs=1
if [[ "${1:-}" == --runs ]]; then runs=$2; shift 2; fi
clients=("$@")
((${#clients[@]})) || clients=(aioapns kalyke apns2 aapns django)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for client in "${clients[@]}"; do
  auth=token
  [[ $client == aapns ]] && auth=certificate  # aapns has no token authentication
  cat >"$work/$client.ring" <<EOF
provider:
  http: python3 "$PWD/Tests/clients/client_service.py" $client
  register: POST /register {"user":"{user}","token":"{token}","kind":"{kind}"}
  unregister: POST /unregister {"user":"{user}","token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
  call-answers: [2xx, 502]
  settles-within: 0s
  auth: $auth
EOF
  for run in $(seq "$runs"); do
    "$ringside" run --jobs 4 --certs certs-test --provider-file "$work/$client.ring" scenarios >"$work/$client.$run.out" 2>&1 || true
  done
done

# The summary's lines: "  ✔ passed  [basis] obligation  (path)", "      first cause: …".
python3 - "$work" "$runs" "${clients[@]}" <<'EOF'
import collections, re, sys
work, runs, clients = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
seen, names = collections.defaultdict(list), {}
for client in clients:
    for run in range(1, runs + 1):
        lines = open(f"{work}/{client}.{run}.out").read().split("\n")
        start = next((i for i, l in enumerate(lines) if l.startswith("conformance of ")), None)
        if start is None:
            sys.exit(f"client-conformance: {client} gave no conformance summary:\n" + "\n".join(lines[-20:]))
        path = None
        for line in lines[start + 1:]:
            match = re.match(r"  (✔|✘|–) (passed|failed|n/a)\s+(\[[^\]]+\] )?(.*)  \((.*)\)$", line)
            if match:
                path = match.group(5).split("scenarios/")[-1]
                names[path] = (match.group(3) or "").strip() + " " + match.group(4)
                seen[(path, client)].append({"passed": "pass", "failed": "fail", "n/a": "n/a"}[match.group(2)])
            elif line.startswith("      first cause: ") and path:
                seen[(path, client)][-1] += ": " + line[len("      first cause: "):]
            elif not line.startswith("      "):
                path = None
cells = {}
for key, verdicts in seen.items():
    counts = collections.Counter(verdicts)
    cells[key] = verdicts[0] if len(counts) == 1 else "unstable: " + "; ".join(
        f"{verdict} ({count} of {runs})" for verdict, count in counts.most_common())
print("| requirement | " + " | ".join(clients) + " |")
print("|---|" + "---|" * len(clients))
for path in sorted(names):
    row = [cells.get((path, client), "–").replace("|", "\\|") for client in clients]
    print(f"| `{path}` {names[path].strip()} | " + " | ".join(row) + " |")
totals = [sum(1 for p in names if cells.get((p, c), "").startswith("pass")) for c in clients]
print("| **passed** | " + " | ".join(f"**{t} of {len(names)}**" for t in totals) + " |")
EOF
