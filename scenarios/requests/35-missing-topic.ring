scenario: With token authentication apns-topic is required: MissingTopic
teaches: |
  A provider token can send for every app of the team, so APNs must be told which app: apns-
  topic. Without it the answer is 400 MissingTopic (a certificate for one app would imply it).
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: MissingTopic
    count: 1
    status: 400
    reason: MissingTopic
