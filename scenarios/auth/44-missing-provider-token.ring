scenario: Without a certificate, every push needs a JWT: MissingProviderToken
teaches: |
  On a connection without a client certificate, APNs authenticates each request by its
  authorization: bearer <JWT> header. A request without one is 403 MissingProviderToken.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: MissingProviderToken
    count: 1
    status: 403
    reason: MissingProviderToken
