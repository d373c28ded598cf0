scenario: apns-topic is a bundle ID: BadTopic
teaches: |
  apns-topic is the app's bundle ID (letters, digits, dots and hyphens), with .voip for VoIP
  pushes. Anything else, a slash say, is 400 BadTopic.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: com.ringside.testapp/voip" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: BadTopic
    count: 1
    status: 400
    reason: BadTopic
