#!/usr/bin/env python3
"""A push provider written with Python's standard library only, for Ringside's `http` adapter.

It speaks the provider contract: APNS_URL, APNS_CA_FILE, APNS_TOPIC, APNS_KEY_FILE, APNS_KEY_ID and
APNS_TEAM_ID come from the environment; PORT says where to listen. HTTP API:
  GET  /health                                     200 when ready
  POST /register   {"user": …, "token": …}          stores a VoIP token
  POST /unregister {"token": …}
  POST /call       {"user": …, "callId": …, "caller": …}   one VoIP push per token of the user
It signs its JWT with the `openssl` CLI (ES256, DER signature: APNs accepts both encodings) and
pushes with `curl --http2`. It forgets a token APNs answers 410 or BadDeviceToken for, and retries
429 and 5xx answers up to three times with exponential back-off and jitter.

With --queue-delay=S its worker pushes S seconds after /call (a job queue polled every S seconds:
Celery, Sidekiq, delayed_job's 5 s); with --redelivers its queue delivers every call's job twice, the
second time a second later (an at-least-once queue: another apns-id, the same call; CallKit refuses
it as a duplicate).

Services answer what their authors chose: with --answers-404-without-devices, /call for a user with
no token answers 404 {"error": "callee has no devices"}; with --answers-409-when-known, /register of
a token it has answers 409; with --answers-404-when-unknown, /unregister of a token it lacks answers
404 (a scenario's template declares them: call-answers, register-answers, unregister-answers).

With --late-push-without-call-id=S it pushes each call's tokens again S seconds later, a payload that
names no call ({"aps": {}, "event": "cancel"}): a push nothing can tie to a call but its time.

With --nested-payload its payload carries the call where its own app reads it, as many teams' do:
{"aps": {}, "data": {"call": {"id": …, "from": …}}} (a provider file says call-id-at: data.call.id).

With --keeps-pushing-after-410 it makes incident 2's mistake: it keeps tokens APNs refused for good
(a negative control: scenario 04 must fail against it). With --queues-pushes it answers /call at once
and pushes half a second later, as a backend with a job queue does; with --ignores-unregister it
answers /unregister and keeps the token (incident 12: scenario 13 must fail against it); with
--exits-after-call it dies right after answering its first /call.
"""
import base64
import http.server
import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
from json_service import JSONHandler

TOKENS = {}  # token -> user
KEEPS_DEAD_TOKENS = "--keeps-pushing-after-410" in sys.argv
QUEUES_PUSHES = "--queues-pushes" in sys.argv
IGNORES_UNREGISTER = "--ignores-unregister" in sys.argv
EXITS_AFTER_CALL = "--exits-after-call" in sys.argv
QUEUE_DELAY = next((float(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--queue-delay=")), None)
REDELIVERS = "--redelivers" in sys.argv
NO_DEVICES_404 = "--answers-404-without-devices" in sys.argv
KNOWN_409 = "--answers-409-when-known" in sys.argv
UNKNOWN_404 = "--answers-404-when-unknown" in sys.argv
NESTED_PAYLOAD = "--nested-payload" in sys.argv
LATE_WITHOUT_ID = next((float(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--late-push-without-call-id=")),
                       None)
JWT = {"value": None, "issued": 0}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt():
    if JWT["value"] and time.time() - JWT["issued"] < 50 * 60:
        return JWT["value"]
    header = b64url(json.dumps({"alg": "ES256", "kid": os.environ["APNS_KEY_ID"]}).encode())
    issued = int(time.time())
    claims = b64url(json.dumps({"iss": os.environ["APNS_TEAM_ID"], "iat": issued}).encode())
    signing_input = f"{header}.{claims}".encode()
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", os.environ["APNS_KEY_FILE"]],
                               input=signing_input, capture_output=True, check=True).stdout
    JWT["value"], JWT["issued"] = f"{header}.{claims}.{b64url(signature)}", issued
    return JWT["value"]


def push(token, call_id, caller):
    for attempt in range(4):
        answer = push_once(token, call_id, caller)
        if answer["status"] != 429 and answer["status"] < 500:
            break
        if attempt < 3:
            time.sleep(0.2 * 2 ** attempt * (0.5 + random.random() / 2))
    return answer


def push_once(token, call_id, caller, payload=None):
    payload = payload or json.dumps({"aps": {}, "data": {"call": {"id": call_id, "from": caller}}} if NESTED_PAYLOAD
                         else {"aps": {}, "callUUID": call_id, "handle": caller})
    result = subprocess.run(
        ["curl", "-s", "--http2", "--cacert", os.environ["APNS_CA_FILE"], "-w", "\n%{http_code}",
         "-H", f"authorization: bearer {jwt()}", "-H", f"apns-topic: {os.environ['APNS_TOPIC']}.voip",
         "-H", "apns-push-type: voip", "-H", "apns-priority: 10", "-H", "apns-expiration: 0",
         "--data-binary", payload, f"{os.environ['APNS_URL']}/3/device/{token}"],
        capture_output=True, text=True)
    body, _, status = result.stdout.rpartition("\n")
    reason = json.loads(body).get("reason") if body.strip() else None
    if (status == "410" or reason == "BadDeviceToken") and not KEEPS_DEAD_TOKENS:
        TOKENS.pop(token, None)  # never push it again
    return {"token": token, "status": int(status or 0), "reason": reason}


JOBS = queue.Queue()


def worker():
    """One worker, as a job queue runs them: each job when it is due, the user's tokens read then."""
    while True:
        due, data = JOBS.get()
        time.sleep(max(0, due - time.time()))
        for token in [token for token, user in list(TOKENS.items()) if user == data["user"]]:
            push(token, data["callId"], data.get("caller", ""))


class Handler(JSONHandler):

    def do_POST(self):
        data = self.request_json()
        if self.path == "/register":
            if KNOWN_409 and TOKENS.get(data["token"]) == data["user"]:
                return self.answer(409, {"error": "already registered"})
            TOKENS[data["token"]] = data["user"]
            self.answer(200, {"registered": data["token"]})
        elif self.path == "/unregister":
            if UNKNOWN_404 and data["token"] not in TOKENS:
                return self.answer(404, {"error": "no such token"})
            if not IGNORES_UNREGISTER:
                TOKENS.pop(data["token"], None)
            self.answer(200, {"unregistered": data["token"]})
        elif self.path == "/call":
            tokens = [token for token, user in list(TOKENS.items()) if user == data["user"]]
            if NO_DEVICES_404 and not tokens:
                return self.answer(404, {"error": "callee has no devices"})
            if QUEUES_PUSHES or QUEUE_DELAY is not None or REDELIVERS:
                JOBS.put((time.time() + (QUEUE_DELAY if QUEUE_DELAY is not None else 0.5), data))
                if REDELIVERS:
                    JOBS.put((time.time() + (QUEUE_DELAY or 0.5) + 1, data))
                self.answer(202, {"queued": len(tokens)})
            else:
                results = [push(token, data["callId"], data.get("caller", "")) for token in tokens]
                if LATE_WITHOUT_ID is not None:
                    def late():
                        time.sleep(LATE_WITHOUT_ID)
                        for token in tokens:
                            push_once(token, "", "", payload=json.dumps({"aps": {}, "event": "cancel"}))
                    threading.Thread(target=late, daemon=True).start()
                self.answer(200, {"pushes": results})
            if EXITS_AFTER_CALL:
                self.wfile.flush()
                os._exit(1)
        else:
            self.answer(404, {"error": self.path})


if __name__ == "__main__":
    threading.Thread(target=worker, daemon=True).start()
    http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
