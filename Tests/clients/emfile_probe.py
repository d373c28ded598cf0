#!/usr/bin/env python3
"""`ringside serve` with 40 file descriptors and 80 clients connecting: the accept loop must back off
(not spin on EMFILE), say so once, and accept again when clients leave. With `held`, the push is sent
while the 80 idle clients still hold every descriptor: a valid push is answered all the same (a
stranger is shed for it, issue 46).

usage: emfile_probe.py RINGSIDE CERTS [held]
prints: cpu=<seconds used in 1.5 s> status=<curl's> logged=<bool> limit=<serve said its open-file limit>
"""
import os, socket, subprocess, sys, time
binary, certs = sys.argv[1], sys.argv[2]
serve = subprocess.Popen(["/bin/sh", "-c", f"ulimit -n 40; exec {binary} serve --port 0 --quiet --certs {certs}"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
contract = {}
while "RINGSIDE_CONTROL_URL" not in contract:
    line = serve.stdout.readline()
    if not line: break
    key, _, value = line.strip().partition("=")
    contract[key] = value
port = int(contract["APNS_PORT"])
held = [socket.create_connection(("127.0.0.1", port)) for _ in range(80)]
time.sleep(0.5)
def cpu():
    fields = open(f"/proc/{serve.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
before = cpu(); time.sleep(1.5); spent = cpu() - before
held_while_pushing = len(sys.argv) > 3 and sys.argv[3] == "held"
if not held_while_pushing:
    for s in held: s.close()
    time.sleep(0.5)
token = subprocess.run([binary, "token", "--certs", certs], capture_output=True, text=True).stdout.strip()
status = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "--http2",
                         "--cacert", contract["APNS_CA_FILE"], "-H", f"authorization: bearer {token}",
                         "-H", "apns-topic: com.ringside.testapp.voip", "-H", "apns-push-type: voip",
                         "--data-binary", '{"aps":{}}', f"{contract['APNS_URL']}/3/device/{'ab'*32}"],
                        capture_output=True, text=True).stdout
for s in held: s.close()
serve.terminate(); _, err = serve.communicate(timeout=10)
print(f"cpu={spent:.2f} status={status} logged={'cannot accept connections' in err} limit={'open-file limit is 40' in err}")
