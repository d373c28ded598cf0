scenario: a second push for the same call 40 ms later is always judged
teaches: |
  Negative control: the provider's worker sends each call again 40 ms later, with another
  apns-id; CallKit refuses the second as a duplicate. The verdict must not depend on whether the
  expectation was judged before the second push arrived.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}; ( sleep 0.04; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} ) >/dev/null 2>&1 &
steps:
  - register: alice
  - call: alice
  - expect phone: alice
    outcome: rang
