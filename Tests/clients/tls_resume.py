"""Two TLS connections to the mock, the second resuming the first's session (as a provider that
caches sessions does on reconnecting), each sending one VoIP push with python-h2.

usage: tls_resume.py PORT CA [CERT KEY | JWT] [TLS_VERSION]
Prints one JSON line: {"reused": [false, true], "status": ["200", "200"]}."""
import json, socket, ssl, sys
import h2.connection, h2.config, h2.events

port, ca = int(sys.argv[1]), sys.argv[2]
rest = sys.argv[3:]
version = rest.pop() if rest and rest[-1] in ("1.2", "1.3") else "1.3"
cert = key = jwt = None
if len(rest) == 2:
    cert, key = rest
elif len(rest) == 1:
    jwt = rest[0]

context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
context.load_verify_locations(ca)
context.set_alpn_protocols(["h2"])
context.maximum_version = ssl.TLSVersion.TLSv1_2 if version == "1.2" else ssl.TLSVersion.TLSv1_3
if cert:
    context.load_cert_chain(cert, key)


def push(session):
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    tls = context.wrap_socket(raw, server_hostname="localhost", session=session)
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    connection.initiate_connection()
    headers = [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
               (":path", "/3/device/" + "ab" * 32), ("apns-topic", "com.ringside.testapp.voip"),
               ("apns-push-type", "voip")]
    if jwt:
        headers.append(("authorization", "bearer " + jwt))
    connection.send_headers(1, headers)
    connection.send_data(1, b'{"aps":{}}', end_stream=True)
    tls.sendall(connection.data_to_send())
    status = None
    while status is None:
        data = tls.recv(65535)
        if not data:
            break
        for event in connection.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict((k.decode(), v.decode()) for k, v in event.headers).get(":status")
        tls.sendall(connection.data_to_send())
    reused, session = tls.session_reused, tls.session
    tls.close()
    return reused, status, session


first = push(None)
second = push(first[2])
print(json.dumps({"reused": [first[0], second[0]], "status": [first[1], second[1]]}))
