#!/usr/bin/env python3
"""Bad input for bench/soak.sh, round after round until killed: what an attacker or a buggy provider
sends. Each round opens its own connections to the fake APNs (TLS) and the control API.

usage: bad_inputs.py APNS_PORT CONTROL_PORT CA_FILE JWT TOKEN
"""
import os, socket, ssl, sys, time
import h2.connection, h2.config, h2.events

port, control, ca, jwt, token = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
context = ssl.create_default_context(cafile=ca)
context.set_alpn_protocols(["h2"])


def tls():
    return context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=2), server_hostname="localhost")


def h2_request(headers, body=b"{}", settle=0.05):
    s = tls()
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8",
                                                             validate_outbound_headers=False,
                                                             normalize_outbound_headers=False))
    c.initiate_connection()
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, headers)
    c.send_data(sid, body, end_stream=True)
    s.sendall(c.data_to_send())
    time.sleep(settle)
    try:
        s.recv(65536)
    except OSError:
        pass
    s.close()


def base(path="/3/device/" + token, authorization="bearer " + jwt):
    return [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"), (":path", path),
            ("authorization", authorization), ("apns-topic", "com.ringside.testapp.voip"),
            ("apns-push-type", "voip"), ("apns-expiration", "0")]


def control_request(line, body=b""):
    s = socket.create_connection(("127.0.0.1", control), timeout=2)
    s.sendall(line + b"\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    try:
        s.recv(65536)
    except OSError:
        pass
    s.close()


def pipelined():
    """Two hundred pipelined listings, never read: answered only as fast as they are read."""
    s = socket.create_connection(("127.0.0.1", control), timeout=2)
    s.sendall(b"GET /phones?limit=1000 HTTP/1.1\r\nHost: x\r\n\r\n" * 200)
    time.sleep(0.05)
    s.close()


idle = []


def idle_control():
    """Control connections that say nothing, up to a hundred held at once (the cap is 256)."""
    if len(idle) >= 100:
        idle.pop(0).close()
    idle.append(socket.create_connection(("127.0.0.1", control), timeout=2))


mischief = [
    lambda: socket.create_connection(("127.0.0.1", port)).sendall(os.urandom(512)),        # not TLS
    lambda: socket.create_connection(("127.0.0.1", port)).sendall(b"\x16\x03\x01"),          # a trickled hello
    lambda: tls().sendall(os.urandom(2048)),                                                   # not HTTP/2
    lambda: h2_request(base(authorization="bearer x.y.z")),                                    # a JWT that is no JWT
    lambda: h2_request(base() + [("x-padding", "a" * 7000)]),                                  # header list 431
    lambda: h2_request(base(), body=b"x" * 6000),                                              # payload too large
    lambda: h2_request(base(path="/3/device/" + "zz" * 32)),                                   # BadDeviceToken
    lambda: h2_request(base() + [("apns-expiration", "9223372036854775807")]),                 # DuplicateHeaders
    lambda: control_request(b"GET ? HTTP/1.1"),
    lambda: control_request(b"POST /faults HTTP/1.1", b'{"count": 1e300, "x": 1'),
    lambda: control_request(b"POST /faults HTTP/1.1", b'{"reason": "ServiceUnavailable", "count": 1e300}'),
    lambda: control_request(b"POST /settings HTTP/1.1", b'{"tokenBytes": 1e9}'),
    lambda: control_request(b"POST /phones/0/state HTTP/1.1", b'{"online": 1}'),
    lambda: control_request(b"GET /phones?limit=1001 HTTP/1.1"),
    lambda: control_request(b"GET /outcomes HTTP/1.1"),
    lambda: control_request(b"GET /transcript HTTP/1.1"),
    lambda: control_request(b"GET //phones/+0/ HTTP/1.1"),
    pipelined,
    idle_control,
]
rounds = 0
while True:
    for act in mischief:
        try:
            act()
        except Exception:
            pass
    rounds += 1
    if rounds % 10 == 0:
        print(f"bad input: {rounds} rounds", flush=True)
