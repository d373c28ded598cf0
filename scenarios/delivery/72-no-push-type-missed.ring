scenario: A VoIP push without apns-push-type is missed
teaches: |
  APNs accepts a push to a .voip topic without apns-push-type, but Apple warns that a missing
  push type may delay the notification or drop it. Ringside's phone misses such a push (world:
  wrong-pushes-delivered: true rings it anyway). Send apns-push-type: voip with every VoIP push.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: not-delivered
    reason: no-push-type
    rules: [no-push-type-missed]
