#!/usr/bin/env python3
"""Opens stream 3, then sends HEADERS on stream 1 (lower than one already used), over cleartext
HTTP/2 with prior knowledge, and prints what the server answered: the status of stream 3 and the
GOAWAY's error code and last-stream-id, as JSON. RFC 9113 §5.1.1: PROTOCOL_ERROR (1).

usage: lower_stream_id.py PORT [reuse]   (reuse: stream 3 twice instead of 3 then 1)
"""
import json, socket, sys
import hpack
from hyperframe.frame import Frame, HeadersFrame, SettingsFrame, GoAwayFrame

port = int(sys.argv[1])
second = 3 if len(sys.argv) > 2 and sys.argv[2] == "reuse" else 1
encoder = hpack.Encoder()
headers = [(":method", "POST"), (":scheme", "http"), (":authority", "localhost"),
           (":path", "/3/device/" + "ab" * 32), ("apns-topic", "com.ringside.testapp.voip"),
           ("apns-push-type", "voip")]
sock = socket.create_connection(("127.0.0.1", port))
sock.settimeout(5)
sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SettingsFrame(0).serialize())
sock.sendall(HeadersFrame(3, data=encoder.encode(headers), flags=["END_HEADERS", "END_STREAM"]).serialize())
sock.sendall(HeadersFrame(second, data=encoder.encode(headers), flags=["END_HEADERS", "END_STREAM"]).serialize())
out = {"goaway": None}
buffer = b""
try:
    while out["goaway"] is None:
        data = sock.recv(65535)
        if not data:
            break
        buffer += data
        while len(buffer) >= 9:
            frame, length = Frame.parse_frame_header(buffer[:9])
            if len(buffer) < 9 + length:
                break
            frame.parse_body(memoryview(buffer[9:9 + length]))
            buffer = buffer[9 + length:]
            if isinstance(frame, GoAwayFrame):
                out["goaway"] = {"error_code": frame.error_code, "last_stream_id": frame.last_stream_id}
            elif isinstance(frame, HeadersFrame):
                out.setdefault("answered", []).append(frame.stream_id)
except socket.timeout:
    out["timeout"] = True
print(json.dumps(out))
