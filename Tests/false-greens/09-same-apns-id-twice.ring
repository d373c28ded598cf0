scenario: two pushes for one call, both answered 200, are not a resend
teaches: |
  Negative control: the provider sends every call twice with the same apns-id; APNs answered the
  first 200, so the second is no resend after an ambiguous failure: CallKit refuses it as a
  duplicate and the expectation fails.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000001" -d '{payload}' {url}/3/device/{token} && curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000001" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
  - expect phone: alice
    outcome: rang
