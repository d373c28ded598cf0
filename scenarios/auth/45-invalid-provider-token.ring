scenario: A JWT signed by a key APNs does not know: InvalidProviderToken
teaches: |
  APNs verifies the JWT's ES256 signature with the key named by its kid. A key it does not know
  (revoked, or another account's), or a signature that does not verify, is 403
  InvalidProviderToken.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer $("$RINGSIDE" token --key-id RINGKEY999)" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: InvalidProviderToken
    count: 1
    status: 403
    reason: InvalidProviderToken
