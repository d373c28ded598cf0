#!/usr/bin/env python3
"""Sends VoIP pushes through real third-party APNs clients from PyPI, as shipped: kalyke-apns (its JWT
carries `iat` as a numeric string) and apns2-up, a maintained fork of PyAPNs2 (its `iat` is a float,
`time.time()`), with token or certificate authentication. Only the host, the port and the CA are
redirected to Ringside's mock. Prints one JSON object per push, as the client reports it:
{"status": "200", "apnsId": ...} (apns2 reports no apns-id: "Success"), or {"reason": ..., "timestamp": ...}.

usage: python_clients.py kalyke|apns2 PORT CA_FILE token P8 KEY_ID TEAM_ID TOPIC TOKEN...
       python_clients.py kalyke|apns2 PORT CA_FILE certificate CERT_FILE KEY_FILE TOPIC TOKEN...
"""
import asyncio
import json
import os
import ssl
import sys
import tempfile

PAYLOAD = {"callUUID": "5f6c5d5e-0000-4000-8000-000000000001", "handle": "bob"}


def report(**fields):
    print(json.dumps({key: value for key, value in fields.items() if value is not None}), flush=True)


def kalyke_send(port, ca, credentials, topic, tokens):
    os.environ["SSL_CERT_FILE"] = ca  # httpx reads the CA from the environment
    # kalyke stores for 30 days by default (apns-expiration now + 2592000): a VoIP provider says 0.
    import httpx2
    from kalyke import VoIPApnsConfig, VoIPClient
    from kalyke.clients.apns import ApnsClient
    from kalyke.clients.voip_certificate import VoIPCertificateClient
    base_url = property(lambda self: f"https://127.0.0.1:{port}")
    ApnsClient._base_url = base_url
    VoIPCertificateClient._base_url = base_url
    if credentials[0] == "token":
        _, key, key_id, team = credentials
        client = VoIPClient(use_sandbox=True, team_id=team, auth_key_id=key_id, auth_key_filepath=key)
    else:
        _, certificate, key = credentials
        # httpx2.create_ssl_context() trusts the system store: add the test CA to the context kalyke makes.
        make = httpx2.create_ssl_context
        httpx2.create_ssl_context = lambda *a, **k: (lambda c: (c.load_verify_locations(ca), c)[1])(make(*a, **k))
        client = VoIPCertificateClient(use_sandbox=True, auth_key_filepath=certificate, key_filepath=key)

    async def main():
        for token in tokens:
            try:
                apns_id = await client.send_message(device_token=token, payload=PAYLOAD,
                                                    apns_config=VoIPApnsConfig(topic=topic, expiration=0))
                report(status="200", apnsId=apns_id)
            except Exception as error:  # kalyke raises one class per APNs reason, with the body
                body = getattr(error, "error", {}) or {}
                report(reason=type(error).__name__, timestamp=body.get("timestamp"))
    asyncio.run(main())


def apns2_send(port, ca, credentials, topic, tokens):
    from apns2 import credentials as apns2_credentials
    from apns2.client import APNsClient
    from apns2.errors import Unregistered
    from apns2.payload import Payload
    APNsClient.SANDBOX_SERVER = "127.0.0.1"
    APNsClient.DEFAULT_PORT = port
    if credentials[0] == "token":
        _, key, key_id, team = credentials
        context = ssl.create_default_context(cafile=ca)
        base = apns2_credentials.Credentials.__init__

        def with_context(self, ssl_context=None):
            base(self, ssl_context or context)
        apns2_credentials.Credentials.__init__ = with_context
        chosen = apns2_credentials.TokenCredentials(key, key_id, team)
    else:
        _, certificate, key = credentials
        # PyAPNs2 loads one PEM holding the certificate and its key.
        bundle = tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False)
        bundle.write(open(certificate).read() + open(key).read())
        bundle.close()
        chosen = apns2_credentials.CertificateCredentials(bundle.name)
        chosen._Credentials__ssl_context.load_verify_locations(ca)  # hyper's context trusts certifi's CAs
    client = APNsClient(chosen, use_sandbox=True)
    for token in tokens:
        try:
            client.send_notification(token, Payload(custom=PAYLOAD), topic=topic, expiration=0)
            report(status="200", apnsId="Success")
        except Unregistered as error:
            report(reason="Unregistered", timestamp=error.timestamp)
        except Exception as error:
            report(reason=type(error).__name__)


if __name__ == "__main__":
    which, port, ca, mode = sys.argv[1:5]
    count = 4 if mode == "token" else 3
    credentials = [mode] + sys.argv[5:5 + count - 1]
    topic = sys.argv[5 + count - 1]
    tokens = sys.argv[5 + count:]
    (kalyke_send if which == "kalyke" else apns2_send)(int(port), ca, credentials, topic, tokens)
