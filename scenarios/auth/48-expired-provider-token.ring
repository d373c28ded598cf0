scenario: A JWT older than an hour: ExpiredProviderToken
teaches: |
  APNs accepts a JWT for an hour after its iat. An older one is 403 ExpiredProviderToken: sign a
  new one, at most every 20 minutes and at least every hour (the built-in provider renews after
  50 minutes).
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer $("$RINGSIDE" token --age 3601)" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: ExpiredProviderToken
    count: 1
    status: 403
    reason: ExpiredProviderToken
