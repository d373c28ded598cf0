#!/usr/bin/env python3
"""Issue 27: 256 unauthenticated idle connections to the control port must not lock the token
holder out. Starts `ringside serve` with a control token, fills the control port's connection cap
with idle strangers, waits past the untrusted deadline, then asks /health with the token.
Prints the status the token holder got (200 when it is not locked out)."""
import socket, subprocess, sys, time, urllib.request

binary, certs = sys.argv[1], sys.argv[2]
serve = subprocess.Popen([binary, "serve", "--certs", certs, "--port", "0", "--control-token", "secret", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    url = None
    for line in serve.stdout:
        if line.startswith("RINGSIDE_CONTROL_URL="):
            url = line.strip().split("=", 1)[1]
            break
    host, port = url.split("//")[1].split(":")
    strangers = []
    for _ in range(300):
        try:
            strangers.append(socket.create_connection((host, int(port)), timeout=2))
        except OSError:
            break
    time.sleep(4.5)
    # A stranger's request is answered 401 Unauthorized (its reason phrase too) and closed.
    probe = socket.create_connection((host, int(port)), timeout=2)
    probe.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    status_line = probe.recv(200).split(b"\r\n")[0].decode()
    if status_line != "HTTP/1.1 401 Unauthorized":
        print(f"stranger got: {status_line}")
    request = urllib.request.Request(url + "/health", headers={"authorization": "Bearer secret"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            print(response.status)
    except Exception as error:
        print(f"locked out: {error}")
finally:
    serve.terminate()
    serve.wait()
