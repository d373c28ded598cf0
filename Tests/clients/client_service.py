#!/usr/bin/env python3
"""A small push provider service built on one real APNs client from PyPI, as that client's docs and
Ringside's cookbook (docs/clients.md) say, for the client conformance table
(scripts/client-conformance.sh): the same service around each client, so that what differs between
the table's columns is the client.

usage: client_service.py aioapns|kalyke|apns2|aapns|django

The provider contract comes from the environment (APNS_URL, APNS_HOST, APNS_PORT, APNS_CA_FILE,
APNS_VOIP_TOPIC, APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_CERT_FILE, APNS_CERT_KEY_FILE); PORT
says where to listen. Its HTTP API is Ringside's http adapter's:
  GET  /health                                            200 when ready
  POST /register   {"user": …, "token": …, "kind": …}     stores a VoIP token
  POST /unregister {"user": …, "token": …}                 forgets it
  POST /call       {"user": …, "callId": …, "caller": …}   one VoIP push per token of the user
What the service itself does is what Ringside asks of every provider and is the same for every
client: one client for the whole service, push type voip, priority 10, expiration 0 (or "now" where
the client cannot send 0), a token forgotten after 410 or BadDeviceToken, 429, 5xx and no answer
retried with back-off. It answers /call 200 with the pushes' results, or 502 when no push could be sent.
"""
import asyncio
import http.server
import json
import os
import ssl
import sys
import tempfile
import threading
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "providers"))
from json_service import JSONHandler  # noqa: E402

CLIENT = sys.argv[1]
TOKENS = {}  # user -> set of tokens
LOCK = threading.Lock()
SEND = threading.Lock()  # the synchronous clients (hyper) are not thread-safe
LOOP = asyncio.new_event_loop()
ENV = os.environ
STATUS = {"Unregistered": 410, "ExpiredToken": 410, "BadDeviceToken": 400, "TooManyRequests": 429,
          "InternalServerError": 500, "ServiceUnavailable": 503, "Shutdown": 503,
          "ExpiredProviderToken": 403, "InvalidProviderToken": 403}


def payload(call_id, caller):
    return {"aps": {}, "callUUID": call_id, "handle": caller}


def refused(error):
    """An exception a client raised for a refusal, as (status, reason)."""
    reason = getattr(error, "status", None) or getattr(error, "reason", None) or type(error).__name__
    reason = str(reason)
    return STATUS.get(reason, 0), reason


def in_loop(coroutine):
    return asyncio.run_coroutine_threadsafe(coroutine, LOOP).result(timeout=60)


def pem_bundle():
    bundle = tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False)
    bundle.write(open(ENV["APNS_CERT_FILE"]).read() + open(ENV["APNS_CERT_KEY_FILE"]).read())
    bundle.close()
    return bundle.name


def make_aioapns():
    from aioapns import APNs, NotificationRequest, PushType
    from aioapns.connection import APNsDevelopmentClientProtocol
    APNsDevelopmentClientProtocol.APNS_SERVER = ENV["APNS_HOST"]
    APNsDevelopmentClientProtocol.APNS_PORT = int(ENV["APNS_PORT"])

    async def create():
        return APNs(key=open(ENV["APNS_KEY_FILE"]).read(), key_id=ENV["APNS_KEY_ID"], team_id=ENV["APNS_TEAM_ID"],
                    topic=ENV["APNS_VOIP_TOPIC"], use_sandbox=True,
                    ssl_context=ssl.create_default_context(cafile=ENV["APNS_CA_FILE"]))
    client = in_loop(create())

    def send(token, call_id, caller):
        result = in_loop(client.send_notification(NotificationRequest(
            device_token=token, message=payload(call_id, caller), push_type=PushType.VOIP, priority=10,
            time_to_live=0)))
        return int(result.status), result.description
    return send


def make_kalyke():
    from dataclasses import dataclass
    from kalyke import VoIPApnsConfig, VoIPClient
    os.environ["SSL_CERT_FILE"] = ENV["APNS_CA_FILE"]

    @dataclass(frozen=True)
    class RingsideVoIPClient(VoIPClient):
        @property
        def _base_url(self):
            return ENV["APNS_URL"]
    client = RingsideVoIPClient(use_sandbox=True, team_id=ENV["APNS_TEAM_ID"], auth_key_id=ENV["APNS_KEY_ID"],
                                auth_key_filepath=ENV["APNS_KEY_FILE"])

    def send(token, call_id, caller):
        try:
            in_loop(client.send_message(device_token=token, payload=payload(call_id, caller),
                                        apns_config=VoIPApnsConfig(topic=ENV["APNS_VOIP_TOPIC"], expiration=0)))
            return 200, None
        except Exception as error:  # one class per APNs reason
            return refused(error)
    return send


def make_apns2():
    from apns2.client import APNsClient, NotificationPriority
    from apns2.credentials import Credentials, TokenCredentials
    from apns2.payload import Payload
    from hyper.tls import init_context

    class RingsideClient(APNsClient):
        SANDBOX_SERVER = ENV["APNS_HOST"]
        DEFAULT_PORT = int(ENV["APNS_PORT"])
    credentials = TokenCredentials(ENV["APNS_KEY_FILE"], ENV["APNS_KEY_ID"], ENV["APNS_TEAM_ID"])
    Credentials.__init__(credentials, init_context(cert_path=ENV["APNS_CA_FILE"]))
    client = RingsideClient(credentials, use_sandbox=True)

    def send(token, call_id, caller):
        try:
            with SEND:
                client.send_notification(token, Payload(custom={"callUUID": call_id, "handle": caller}),
                                         topic=ENV["APNS_VOIP_TOPIC"], priority=NotificationPriority.Immediate,
                                         expiration=0)
            return 200, None
        except Exception as error:  # an exception named after the reason
            return refused(error)
    return send


def make_aapns():
    from aapns.api import Server
    from aapns.config import Priority
    from aapns.models import Alert, Notification, PushType

    async def create():
        server = Server(client_cert_path=pem_bundle(), host=ENV["APNS_HOST"], port=int(ENV["APNS_PORT"]),
                        ca_file=ENV["APNS_CA_FILE"])
        return await server.create_client()
    client = in_loop(create())

    def send(token, call_id, caller):
        try:
            in_loop(client.send_notification(
                token, Notification(alert=Alert(body="Incoming call"), push_type=PushType.voip,
                                    extra={"callUUID": call_id, "handle": caller}),
                topic=ENV["APNS_VOIP_TOPIC"], priority=Priority.immediately, expiration=int(time.time())))
            return 200, None
        except Exception as error:
            return refused(error)
    return send


def make_django():
    import django
    from django.conf import settings
    settings.configure(
        INSTALLED_APPS=["django.contrib.auth", "django.contrib.contenttypes", "push_notifications"],
        # A file: each of the service's threads opens its own connection (":memory:" is one per connection).
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": tempfile.mktemp(suffix=".sqlite3")}},
        PUSH_NOTIFICATIONS_SETTINGS={
            "APNS_AUTH_KEY_PATH": ENV["APNS_KEY_FILE"], "APNS_AUTH_KEY_ID": ENV["APNS_KEY_ID"],
            "APNS_TEAM_ID": ENV["APNS_TEAM_ID"], "APNS_TOPIC": ENV["APNS_VOIP_TOPIC"], "APNS_USE_SANDBOX": True,
        },
    )
    django.setup()
    # Its tables, as `manage.py migrate` makes them: on a 410 it marks the device inactive there.
    from django.core.management import call_command
    call_command("migrate", verbosity=0)
    from apns2.client import APNsClient
    from apns2.credentials import Credentials, TokenCredentials
    from hyper.tls import init_context
    from push_notifications.apns import apns_send_message
    APNsClient.SANDBOX_SERVER = ENV["APNS_HOST"]
    APNsClient.DEFAULT_PORT = int(ENV["APNS_PORT"])
    credentials = TokenCredentials(ENV["APNS_KEY_FILE"], ENV["APNS_KEY_ID"], ENV["APNS_TEAM_ID"])
    Credentials.__init__(credentials, init_context(cert_path=ENV["APNS_CA_FILE"]))

    def send(token, call_id, caller):
        try:
            with SEND:
                apns_send_message(token, None, creds=credentials, extra={"callUUID": call_id, "handle": caller},
                                  priority=10, expiration=int(time.time()))
            return 200, None
        except Exception as error:  # APNSServerError(status=<reason>)
            return refused(error)
    return send


def ring(send, user, call_id, caller):
    with LOCK:
        tokens = sorted(TOKENS.get(user, ()))
    results = []
    for token in tokens:
        for attempt in range(4):
            try:
                status, reason = send(token, call_id, caller)
            except Exception as error:  # no answer at all (a refused handshake, a closed connection)
                status, reason = 0, f"{type(error).__name__}: {error}"
            # No answer (the connection closed under it: a GOAWAY) is sent again too, as 429 and 5xx.
            if status != 0 and status != 429 and status < 500 or attempt == 3:
                break
            time.sleep(0.2 * 2 ** attempt)
        if status == 410 or reason == "BadDeviceToken":
            with LOCK:
                TOKENS.get(user, set()).discard(token)
        results.append({"token": token, "status": status, "reason": reason})
    return results


class Handler(JSONHandler):

    def do_POST(self):
        data = self.request_json()
        if self.path == "/register":
            with LOCK:
                TOKENS.setdefault(data["user"], set()).add(data["token"])
            self.answer(200, {"registered": data["token"]})
        elif self.path == "/unregister":
            with LOCK:
                TOKENS.get(data["user"], set()).discard(data["token"])
            self.answer(200, {"unregistered": data["token"]})
        elif self.path == "/call":
            results = ring(SENDER, data["user"], data["callId"], data["caller"])
            print(json.dumps(results), flush=True)  # the runner shows a failure's provider output
            sent = not results or any(result["status"] != 0 for result in results)
            self.answer(200 if sent else 502, {"pushes": results})
        else:
            self.answer(404, {"error": self.path})


if __name__ == "__main__":
    threading.Thread(target=LOOP.run_forever, daemon=True).start()
    SENDER = {"aioapns": make_aioapns, "kalyke": make_kalyke, "apns2": make_apns2, "aapns": make_aapns,
              "django": make_django}[CLIENT]()
    http.server.ThreadingHTTPServer(("127.0.0.1", int(ENV["PORT"])), Handler).serve_forever()
