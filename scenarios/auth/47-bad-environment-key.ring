scenario: A key for production only, used against the sandbox: BadEnvironmentKeyInToken
teaches: |
  An APNs key may be limited to one environment. A production-only key against the sandbox (or
  the reverse) is 403 BadEnvironmentKeyInToken, the spelling APNs has been seen to send (Apple's
  page says BadEnvironmentKeyIdInToken).
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer $("$RINGSIDE" token --key-id RINGKEY004)" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: BadEnvironmentKeyInToken
    count: 1
    status: 403
    reason: BadEnvironmentKeyInToken
