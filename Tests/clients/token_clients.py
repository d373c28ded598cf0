#!/usr/bin/env python3
"""Sends VoIP pushes with token authentication through real third-party APNs clients from PyPI, as
shipped: kalyke-apns (its JWT carries `iat` as a numeric string) and apns2-up, a maintained fork of
PyAPNs2 (its `iat` is a float, `time.time()`). Only the host, the port and the CA are redirected to
Ringside's mock. Prints one JSON object per push: {"status": "200"} or {"reason": "<APNs reason>"}.

usage: token_clients.py kalyke|apns2 PORT CA_FILE P8 KEY_ID TEAM_ID TOPIC TOKEN...
"""
import asyncio
import json
import os
import ssl
import sys


def kalyke_send(port, ca, key, key_id, team, topic, tokens):
    os.environ["SSL_CERT_FILE"] = ca  # httpx reads the CA from the environment
    from kalyke import VoIPApnsConfig, VoIPClient
    from kalyke.clients.apns import ApnsClient
    ApnsClient._base_url = property(lambda self: f"https://127.0.0.1:{port}")

    async def main():
        client = VoIPClient(use_sandbox=True, team_id=team, auth_key_id=key_id, auth_key_filepath=key)
        for token in tokens:
            try:
                await client.send_message(device_token=token, payload={"callUUID": "5f6c5d5e-0000-4000-8000-000000000001"},
                                          apns_config=VoIPApnsConfig(topic=topic))
                print(json.dumps({"status": "200"}), flush=True)
            except Exception as error:  # kalyke raises one class per APNs reason
                print(json.dumps({"reason": type(error).__name__}), flush=True)
    asyncio.run(main())


def apns2_send(port, ca, key, key_id, team, topic, tokens):
    from apns2 import credentials
    from apns2.client import APNsClient
    from apns2.payload import Payload
    context = ssl.create_default_context(cafile=ca)
    base = credentials.Credentials.__init__

    def with_context(self, ssl_context=None):
        base(self, ssl_context or context)
    credentials.Credentials.__init__ = with_context
    APNsClient.SANDBOX_SERVER = "127.0.0.1"
    APNsClient.DEFAULT_PORT = port
    client = APNsClient(credentials.TokenCredentials(key, key_id, team), use_sandbox=True)
    for token in tokens:
        try:
            client.send_notification(token, Payload(custom={"callUUID": "5f6c5d5e-0000-4000-8000-000000000001"}),
                                     topic=topic, expiration=0)  # the .voip topic makes it a voip push
            print(json.dumps({"status": "200"}), flush=True)
        except Exception as error:
            print(json.dumps({"reason": type(error).__name__}), flush=True)


if __name__ == "__main__":
    which, port, ca, key, key_id, team, topic = sys.argv[1:8]
    (kalyke_send if which == "kalyke" else apns2_send)(int(port), ca, key, key_id, team, topic, sys.argv[8:])
