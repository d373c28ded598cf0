scenario: apns-push-type is a word from Apple's list: InvalidPushType
teaches: |
  apns-push-type says what the push is: alert, background, voip, location, complication,
  fileprovider, mdm, liveactivity, pushtotalk, widgets. Any other word is 400 InvalidPushType. A
  VoIP push says voip, with the .voip topic.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: ring" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: InvalidPushType
    count: 1
    status: 400
    reason: InvalidPushType
