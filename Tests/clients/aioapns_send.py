#!/usr/bin/env python3
"""Sends pushes through aioapns (a real third-party APNs client from PyPI), as shipped.

Only the host, the port and the CA are redirected to Ringside's mock; everything else is aioapns'
own code: its JWT signing (PyJWT, raw R||S signatures), its HTTP/2 (h2, prior knowledge over TLS,
no ALPN), its headers. Prints one JSON object per push on standard output.

usage: aioapns_send.py PORT CA_FILE (--key P8 KEY_ID TEAM_ID | --cert PEM_WITH_KEY) TOPIC PUSHES_JSON
PUSHES_JSON: [{"token": "...", "push_type": "voip", "priority": 10, "expiration": 0, "message": {...}}, ...]
"""
import asyncio
import json
import ssl
import sys

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection


async def main(argv):
    port, ca_file, mode = int(argv[1]), argv[2], argv[3]
    # The redirection: aioapns' sandbox host and port, and the CA that signs the mock's certificate.
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = "127.0.0.1"
    connection.APNsTLSClientProtocol.APNS_PORT = port
    context = ssl.create_default_context(cafile=ca_file)
    if mode == "--key":
        key_file, key_id, team_id, topic, pushes = argv[4], argv[5], argv[6], argv[7], argv[8]
        with open(key_file) as f:
            key = f.read()
        client = APNs(key=key, key_id=key_id, team_id=team_id, topic=topic, use_sandbox=True,
                      ssl_context=context, max_connection_attempts=1)
    else:
        cert_file, topic, pushes = argv[4], argv[5], argv[6]
        client = APNs(client_cert=cert_file, topic=topic, use_sandbox=True, ssl_context=context,
                      max_connection_attempts=1)
    for push in json.loads(pushes):
        request = NotificationRequest(
            device_token=push["token"],
            message=push.get("message", {"aps": {}, "callUUID": "5f6c5d5e-0000-4000-8000-000000000001"}),
            push_type=PushType(push.get("push_type", "voip")),
            priority=push.get("priority"),
            time_to_live=push.get("time_to_live"),
        )
        result = await client.send_notification(request)
        print(json.dumps({"status": result.status, "description": result.description,
                          "apns_id": result.notification_id, "is_successful": result.is_successful}),
              flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv))
