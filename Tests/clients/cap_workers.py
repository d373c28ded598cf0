#!/usr/bin/env python3
"""At --max-connections with several workers, a newcomer takes the place of a stranger on any
worker (issue 46): two trusted HTTP/2 connections (a push answered 200 on each, kept open) land on
workers 0 and 1, one idle stranger on worker 2; a fourth client's push must be answered all the
same. With only the first other worker asked, it was refused.

usage: cap_workers.py RINGSIDE CERTS
prints: trusted=<200s of the two kept connections> stranger=<shed|kept> newcomer=<curl's status>"""
import socket, ssl, subprocess, sys, time
import h2.config, h2.connection, h2.events

binary, certs = sys.argv[1], sys.argv[2]
serve = subprocess.Popen([binary, "serve", "--certs", certs, "--port", "0", "--quiet", "--workers", "3",
                          "--max-connections", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
contract = {}
while "RINGSIDE_CONTROL_URL" not in contract:
    line = serve.stdout.readline()
    if not line: break
    key, _, value = line.strip().partition("=")
    contract[key] = value
port = int(contract["APNS_PORT"])
token = subprocess.run([binary, "token", "--certs", certs], capture_output=True, text=True).stdout.strip()
context = ssl.create_default_context(cafile=contract["APNS_CA_FILE"])
context.set_alpn_protocols(["h2"])

def trusted():
    """A connection that has pushed once with a valid JWT, and stays open."""
    sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    connection.send_headers(1, [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                                (":path", "/3/device/" + "ab" * 32), ("authorization", "bearer " + token),
                                ("apns-topic", "com.ringside.testapp.voip"), ("apns-push-type", "voip")])
    connection.send_data(1, b'{"aps":{}}', end_stream=True)
    sock.sendall(connection.data_to_send())
    status = None
    while status is None:
        data = sock.recv(65536)
        if not data: break
        for event in connection.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers).get(b":status", b"").decode()
        sock.sendall(connection.data_to_send())
    return sock, status

kept = [trusted(), trusted()]
stranger = socket.create_connection(("127.0.0.1", port))
time.sleep(0.3)
newcomer = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "--http2",
                           "--cacert", contract["APNS_CA_FILE"], "-H", f"authorization: bearer {token}",
                           "-H", "apns-topic: com.ringside.testapp.voip", "-H", "apns-push-type: voip",
                           "--data-binary", '{"aps":{}}', f"{contract['APNS_URL']}/3/device/{'ab' * 32}"],
                          capture_output=True, text=True).stdout
stranger.settimeout(2)
try:
    shed = stranger.recv(1) == b""
except (ConnectionResetError, socket.timeout):
    shed = True
except OSError:
    shed = True
serve.terminate()
serve.communicate(timeout=10)
print(f"trusted={','.join(str(s) for _, s in kept)} stranger={'shed' if shed else 'kept'} newcomer={newcomer}")
