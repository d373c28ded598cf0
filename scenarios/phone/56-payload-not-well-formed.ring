scenario: A VoIP payload without the call's id cannot be reported, and the app is killed
teaches: |
  The app needs the call's id and caller from the payload to report the call to CallKit. A provider
  that sends a VoIP push without them (here {"aps":{}} alone) leaves an app that checks its input
  nothing to report, and iOS kills it for not reporting. Put callUUID and handle in every VoIP push.
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        behaviour: reports-only-well-formed
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{{"aps":{{}}}}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: app-killed
    rules: [payload-not-well-formed]
