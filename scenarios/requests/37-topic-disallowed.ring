scenario: A VoIP push goes to the .voip topic: TopicDisallowed
teaches: |
  apns-push-type voip needs the topic <bundle>.voip. A VoIP push to the bare bundle ID is 400
  TopicDisallowed: the push type and the topic disagree.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: com.ringside.testapp" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: TopicDisallowed
    count: 1
    status: 400
    reason: TopicDisallowed
