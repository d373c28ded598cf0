#!/usr/bin/env bash
# The client conformance table (issue 45; Autobahn|Testsuite's idea for APNs clients): for each real
# APNs client from PyPI, the same small provider service built on it as its docs say
# (Tests/clients/client_service.py) runs the whole scenario library; the table is requirement ×
# client, each cell passed, failed (with the first cause of the failure) or n/a (written for the
# other authentication). docs/clients.md shows it.
#
# usage: bash scripts/client-conformance.sh [CLIENT…]   (default: all five)
# Uses the ringside on PATH, else the checkout's debug build. Prints the table as Markdown.
set -euo pipefail
cd "$(dirname "$0")/.."
ringside=$(command -v ringside || echo .build/debug/ringside)
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
  "$ringside" run --certs certs-test --provider-file "$work/$client.ring" scenarios >"$work/$client.out" 2>&1 || true
done

# The summary's lines: "  ✔ passed  [basis] obligation  (path)", "      first cause: …".
python3 - "$work" "${clients[@]}" <<'EOF'
import re, sys
work, clients = sys.argv[1], sys.argv[2:]
cells, names = {}, {}
for client in clients:
    lines = open(f"{work}/{client}.out").read().split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith("conformance of ")), None)
    if start is None:
        sys.exit(f"client-conformance: {client} gave no conformance summary:\n" + "\n".join(lines[-20:]))
    path = None
    for line in lines[start + 1:]:
        match = re.match(r"  (✔|✘|–) (passed|failed|n/a)\s+(\[[^\]]+\] )?(.*)  \((.*)\)$", line)
        if match:
            path = match.group(5).split("scenarios/")[-1]
            names[path] = (match.group(3) or "").strip() + " " + match.group(4)
            cells[(path, client)] = {"passed": "pass", "failed": "fail", "n/a": "n/a"}[match.group(2)]
        elif line.startswith("      first cause: ") and path:
            cells[(path, client)] += ": " + line[len("      first cause: "):]
        elif not line.startswith("      "):
            path = None
print("| requirement | " + " | ".join(clients) + " |")
print("|---|" + "---|" * len(clients))
for path in sorted(names):
    row = [cells.get((path, client), "–").replace("|", "\\|") for client in clients]
    print(f"| `{path}` {names[path].strip()} | " + " | ".join(row) + " |")
totals = [sum(1 for p in names if cells.get((p, c), "").startswith("pass")) for c in clients]
print("| **passed** | " + " | ".join(f"**{t} of {len(names)}**" for t in totals) + " |")
EOF
