scenario: Pushes are POSTs: MethodNotAllowed
teaches: |
  APNs takes pushes as POST requests only; a PUT (or GET) is 405 MethodNotAllowed.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -X PUT -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: MethodNotAllowed
    count: 1
    status: 405
    reason: MethodNotAllowed
