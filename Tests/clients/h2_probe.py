#!/usr/bin/env python3
"""A hand-driven HTTP/2 client (python-h2, arrived with aioapns) for what curl cannot show or do:
GOAWAY frames and their debug data, SETTINGS values, vanishing mid-stream, huge header lists,
garbage instead of the HTTP/2 preface, plain bytes instead of TLS.

usage: h2_probe.py JSON   where JSON is
  {"port": N, "ca": FILE, "cert": FILE?, "key": FILE?, "alpn": ["h2"] | [] (default none),
   "plaintext": false, "mode": "requests" | "vanish" | "garbage-after-tls" | "plain-bytes" | "silent",
   "requests": [{"headers": [[name, value], ...], "body": "..."}], "wait": seconds,
   "split_preface": true (the connection preface in two writes, 0.2 s apart),
   "headers_first": true (every stream's HEADERS, then the bodies), "reverse_data": true (bodies last first)}
Prints one JSON object: {"responses": [...], "goaway": {...} | null, "settings": {...}, "closed": bool}
"""
import json
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings


def connect(cfg):
    sock = socket.create_connection(("127.0.0.1", cfg["port"]), timeout=cfg.get("wait", 5))
    if cfg.get("plaintext") or cfg.get("mode") == "plain-bytes":
        return sock
    context = ssl.create_default_context(cafile=cfg["ca"])
    if cfg.get("cert"):
        context.load_cert_chain(cfg["cert"], cfg.get("key"))
    if cfg.get("alpn"):
        context.set_alpn_protocols(cfg["alpn"])
    return context.wrap_socket(sock, server_hostname="localhost")


def main():
    cfg = json.loads(sys.argv[1])
    mode = cfg.get("mode", "requests")
    out = {"responses": [], "goaway": None, "settings": {}, "closed": False, "error": None}
    try:
        sock = connect(cfg)
    except (ssl.SSLError, OSError) as error:
        out["error"] = f"{type(error).__name__}: {error}"
        print(json.dumps(out))
        return
    if mode == "plain-bytes":
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            out["closed"] = sock.recv(4096) == b"" or True
        except OSError:
            out["closed"] = True
        print(json.dumps(out))
        return
    if mode == "garbage-after-tls":
        sock.sendall(b"this is not the HTTP/2 connection preface\r\n\r\n" * 4)
        data = b""
        try:
            while True:
                chunk = sock.recv(65535)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        out["closed"] = True
        out["received_bytes"] = len(data)
        print(json.dumps(out))
        return
    if mode == "silent":
        # Send nothing; read what the server sends (its SETTINGS, then perhaps GOAWAY) until it closes.
        deadline = time.time() + cfg.get("wait", 1)
        while time.time() < deadline:
            try:
                sock.settimeout(max(0.05, deadline - time.time()))
                if sock.recv(65535) == b"":
                    out["closed"] = True
                    break
            except socket.timeout:
                break
            except OSError:
                out["closed"] = True
                break
        print(json.dumps(out))
        return
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    opening = conn.data_to_send()
    if cfg.get("split_preface"):
        # The preface in two reads, as a slow or fragmenting network delivers it.
        sock.sendall(opening[:8])
        time.sleep(0.2)
        opening = opening[8:]
    sock.sendall(opening)
    pending = {}
    done = set()
    concurrent = cfg.get("concurrent", False) or mode == "vanish"

    def pump(until):
        """Reads frames until `until()` holds, the wait runs out, or the connection closes."""
        deadline = time.time() + cfg.get("wait", 5)
        while time.time() < deadline and not until():
            try:
                sock.settimeout(max(0.05, deadline - time.time()))
                data = sock.recv(65535)
            except socket.timeout:
                return
            except OSError:
                out["closed"] = True
                return
            if not data:
                out["closed"] = True
                return
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RemoteSettingsChanged):
                    for key, change in event.changed_settings.items():
                        out["settings"][h2.settings.SettingCodes(key).name] = change.new_value
                        if h2.settings.SettingCodes(key).name == "MAX_CONCURRENT_STREAMS":
                            out.setdefault("streams_history", []).append(change.new_value)
                elif isinstance(event, h2.events.ResponseReceived):
                    pending[event.stream_id]["headers"] = {k: v for k, v in event.headers}
                elif isinstance(event, h2.events.DataReceived):
                    pending[event.stream_id]["body"] += event.data.decode()
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    done.add(event.stream_id)
                    out.setdefault("completion_order", []).append(event.stream_id)
                    out.setdefault("order", []).append(f"end {event.stream_id}")
                elif isinstance(event, h2.events.StreamReset):
                    if event.stream_id in pending:
                        pending[event.stream_id]["reset"] = int(event.error_code)
                    done.add(event.stream_id)
                    out.setdefault("order", []).append(f"reset {event.stream_id}")
                elif isinstance(event, h2.events.ConnectionTerminated):
                    out.setdefault("order", []).append("goaway")
                    out["goaway"] = {"error_code": int(event.error_code), "last_stream_id": event.last_stream_id,
                                     "debug": (event.additional_data or b"").decode()}
            try:
                sock.sendall(conn.data_to_send())
            except OSError:
                pass

    def send(request):
        try:
            return send_one(request)
        except h2.exceptions.ProtocolError as error:
            out.setdefault("not_sent", []).append(str(error))
            return None

    def send_one(request):
        stream_id = conn.get_next_available_stream_id()
        body = request.get("body", "").encode()
        if "body_bytes" in request:
            body = b" " * request["body_bytes"]
        conn.send_headers(stream_id, request["headers"], end_stream=(not body and mode != "vanish"))
        if body and mode != "vanish":
            # Respect flow control: send what the window allows, pump for WINDOW_UPDATE, repeat.
            while body:
                window = min(conn.local_flow_control_window(stream_id), conn.max_outbound_frame_size)
                if window <= 0:
                    sock.sendall(conn.data_to_send())
                    pump(lambda: conn.local_flow_control_window(stream_id) > 0 or out["goaway"] is not None)
                    if out["closed"] or out["goaway"] is not None:
                        return
                    continue
                chunk, body = body[:window], body[window:]
                conn.send_data(stream_id, chunk, end_stream=not body)
        pending[stream_id] = {"stream": stream_id, "headers": {}, "body": ""}
        if not cfg.get("one_write"):
            sock.sendall(conn.data_to_send())
        return stream_id

    if cfg.get("warmup"):
        # One request first, answered before the rest (authenticates a token connection).
        warm = send(cfg["warmup"])
        pump(lambda: warm in done)
    if cfg.get("headers_first"):
        # Open every stream before any body: streams overlap, as under load.
        ids = []
        for request in cfg.get("requests", []):
            stream_id = conn.get_next_available_stream_id()
            conn.send_headers(stream_id, request["headers"], end_stream=False)
            pending[stream_id] = {"stream": stream_id, "headers": {}, "body": ""}
            ids.append((stream_id, request))
        if cfg.get("reverse_data"):
            # The bodies in the opposite order: the last stream opened gets its DATA first.
            ids.reverse()
        for stream_id, request in ids:
            try:
                conn.send_data(stream_id, request.get("body", "{}").encode(), end_stream=True)
            except Exception:
                pass
        sock.sendall(conn.data_to_send())
        pump(lambda: len(done) >= len(pending))
        out["responses"] = list(pending.values())
        print(json.dumps(out))
        return
    for request in cfg.get("requests", []):
        if request.get("sleep_before"):
            time.sleep(request["sleep_before"])
        stream_id = send(request)
        if not concurrent and stream_id is not None:
            pump(lambda: stream_id in done or out["goaway"] is not None)
        if out["closed"]:
            break
    if cfg.get("one_write"):
        # Every request's HEADERS and DATA in one write, before any SETTINGS is read.
        sock.sendall(conn.data_to_send())
    if mode == "vanish":
        sock.close()
        out["closed"] = True
        print(json.dumps(out))
        return
    if cfg.get("until_closed"):
        pump(lambda: out["closed"])
    elif cfg.get("wait_for_goaway"):
        pump(lambda: out["goaway"] is not None)
    else:
        pump(lambda: len(done) >= len(pending))
    out["responses"] = list(pending.values())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
