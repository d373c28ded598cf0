scenario: the same JWT spelt Bearer is not a new JWT
teaches: |
  Negative control: after ExpiredProviderToken the provider sends the same JWT again, with the
  scheme spelt Bearer instead of bearer. The scheme is case-insensitive: it did not refresh.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: Bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - fault: ExpiredProviderToken
    count: 1
  - call: alice
  - expect provider: a new JWT
    refreshed-jwt: true
