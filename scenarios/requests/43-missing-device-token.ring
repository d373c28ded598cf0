scenario: The path names a device token: MissingDeviceToken
teaches: |
  A push to /3/device/ with no token after it is 400 MissingDeviceToken: typically a provider
  that pushed to a user before the app registered its token.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: MissingDeviceToken
    count: 1
    status: 400
    reason: MissingDeviceToken
