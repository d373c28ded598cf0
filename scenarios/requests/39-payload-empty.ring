scenario: A push needs a body: PayloadEmpty
teaches: |
  The payload is the push: a request without a body is 400 PayloadEmpty. A VoIP payload carries
  at least the call's id, e.g. {"aps":{},"callUUID":"…","handle":"…"}.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -X POST {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: PayloadEmpty
    count: 1
    status: 400
    reason: PayloadEmpty
