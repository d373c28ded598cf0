scenario: A VoIP payload is at most 5 KB: PayloadTooLarge
teaches: |
  APNs limits the payload: 4 KB for a regular push, 5 KB for a VoIP push. A larger one is 413
  PayloadTooLarge. Send the call's id and let the app fetch the rest.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d "{{\"aps\":{{}},\"pad\":\"$(head -c 6000 /dev/zero | tr '\0' x)\"}}" {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: PayloadTooLarge
    count: 1
    status: 413
    reason: PayloadTooLarge
