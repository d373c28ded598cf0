scenario: apns-collapse-id is at most 64 bytes: BadCollapseId
teaches: |
  apns-collapse-id lets a newer notification replace an older one on the phone; it is at most 64
  bytes, and a longer one is 400 BadCollapseId. A VoIP push does not need it.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-collapse-id: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: BadCollapseId
    count: 1
    status: 400
    reason: BadCollapseId
