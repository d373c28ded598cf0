scenario: An APNs header sent twice: DuplicateHeaders
teaches: |
  Each apns- header may appear once. A provider that adds a header its library already sets
  sends it twice, and APNs answers 400 DuplicateHeaders.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "apns-priority: 10" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: DuplicateHeaders
    count: 1
    status: 400
    reason: DuplicateHeaders
