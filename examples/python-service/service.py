#!/usr/bin/env python3
"""A calling app's push backend, the way a real one is written: an HTTP API for the app and the call
server, a token store, and aioapns (a real APNs client from PyPI) to send VoIP pushes.

  GET  /health                                              200 when ready
  POST /register   {"user": …, "token": …, "kind": "voip"}   the app hands over its PushKit token
  POST /unregister {"user": …, "token": …}                   the user logged out
  POST /call       {"user": …, "callId": …, "caller": …}      ring every phone of the user

Where APNs is comes from the provider contract in the environment (APNS_URL, APNS_CA_FILE,
APNS_VOIP_TOPIC, APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID); against Apple you would leave them unset.
It does what Apple asks: one client (one HTTP/2 connection, one JWT reused) for the whole service,
push type voip, priority 10, an expiration of now (aioapns's time_to_live=0: APNs never stores the
push, so an old call cannot ring), a token forgotten after 410 Unregistered or BadDeviceToken, and
429 or 5xx retried with exponential back-off.

SERVICE_MISTAKE makes a classic mistake on purpose, so that its scenarios can be seen to fail:
  keeps-dead-tokens    pushes a token again after 410 (incident 2)
  forgets-live-tokens  forgets every token it pushed, whatever APNs answered
  no-retry             gives up on the first 503
  priority-5           sends VoIP pushes with priority 5
  expiration-hour      lets APNs store a push for an hour (incident 4: the ghost call)
  client-per-push      opens a new connection (and signs a new JWT) for every push
"""
import asyncio
import http.server
import json
import os
import ssl
import threading
import urllib.parse

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection

MISTAKE = os.environ.get("SERVICE_MISTAKE", "")
TOKENS = {}  # user -> set of PushKit tokens
LOCK = threading.Lock()
LOOP = asyncio.new_event_loop()


def apns_client():
    url = urllib.parse.urlparse(os.environ["APNS_URL"])
    # aioapns talks to Apple's hosts; the contract points it at the fake APNs instead.
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = url.hostname
    connection.APNsTLSClientProtocol.APNS_PORT = url.port
    with open(os.environ["APNS_KEY_FILE"]) as f:
        key = f.read()
    return APNs(key=key, key_id=os.environ["APNS_KEY_ID"], team_id=os.environ["APNS_TEAM_ID"],
                topic=os.environ["APNS_VOIP_TOPIC"], use_sandbox=True,
                ssl_context=ssl.create_default_context(cafile=os.environ["APNS_CA_FILE"]))


async def make_client():
    return apns_client()


CLIENT = None


async def ring(user, call_id, caller):
    with LOCK:
        tokens = sorted(TOKENS.get(user, ()))
    results = []
    for token in tokens:
        request = NotificationRequest(
            device_token=token, message={"aps": {}, "callUUID": call_id, "handle": caller},
            push_type=PushType.VOIP, priority=5 if MISTAKE == "priority-5" else 10,
            time_to_live=3600 if MISTAKE == "expiration-hour" else 0)
        client = apns_client() if MISTAKE == "client-per-push" else CLIENT
        for attempt in range(4):
            result = await client.send_notification(request)
            status = int(result.status)
            if status != 429 and status < 500 or MISTAKE == "no-retry" or attempt == 3:
                break
            await asyncio.sleep(0.2 * 2 ** attempt)
        dead = status == 410 or result.description == "BadDeviceToken"
        if dead and MISTAKE != "keeps-dead-tokens" or MISTAKE == "forgets-live-tokens":
            with LOCK:
                TOKENS.get(user, set()).discard(token)  # dead: never push it again
        results.append({"token": token, "status": status, "reason": result.description})
    return results


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.answer(200 if self.path == "/health" else 404, {"ok": self.path == "/health"})

    def do_POST(self):
        data = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        if self.path == "/register" and data.get("kind", "voip") == "voip":
            with LOCK:
                TOKENS.setdefault(data["user"], set()).add(data["token"])
            self.answer(200, {"registered": data["token"]})
        elif self.path == "/register":
            self.answer(400, {"error": "only PushKit (voip) tokens ring a phone"})
        elif self.path == "/unregister":
            with LOCK:
                TOKENS.get(data["user"], set()).discard(data["token"])
            self.answer(200, {"unregistered": data["token"]})
        elif self.path == "/call":
            future = asyncio.run_coroutine_threadsafe(ring(data["user"], data["callId"], data["caller"]), LOOP)
            self.answer(200, {"pushes": future.result(timeout=30)})
        else:
            self.answer(404, {"error": self.path})


if __name__ == "__main__":
    threading.Thread(target=LOOP.run_forever, daemon=True).start()
    CLIENT = asyncio.run_coroutine_threadsafe(make_client(), LOOP).result()
    http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
