scenario: connections-at-most written before the calls still counts the connections they open
teaches: |
  Negative control: a provider that opens a connection per push must fail connections-at-most
  even when the expectation is written before the calls (judged at the scenario's end).
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - expect provider: one connection
    connections-at-most: 1
  - call: alice
  - call: alice
