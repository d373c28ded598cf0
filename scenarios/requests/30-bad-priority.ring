scenario: apns-priority must be 10, 5 or 1: BadPriority
teaches: |
  APNs reads apns-priority as 10 (deliver now), 5 (when it saves power) or 1 (prioritize the
  power); any other number is 400 BadPriority and the push goes nowhere. A VoIP push is always
  10.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 7" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: BadPriority
    count: 1
    status: 400
    reason: BadPriority
