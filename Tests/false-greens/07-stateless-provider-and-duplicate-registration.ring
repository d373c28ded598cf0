scenario: a stateless one-liner fails the duplicate-registration requirement
teaches: |
  Negative control: registered twice, a provider without a token store pushes twice.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - register: alice
  - call: alice
  - expect apns: one push
    count: 1
