scenario: apns-id must be a UUID: BadMessageId
teaches: |
  A provider may choose the apns-id APNs answers with, so that it can match answers to requests,
  but it must be a canonical UUID (8-4-4-4-12 hex digits); anything else is 400 BadMessageId.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: call-42" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: BadMessageId
    count: 1
    status: 400
    reason: BadMessageId
