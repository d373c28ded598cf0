scenario: a short within on a count does not cut the quiet wait short
teaches: |
  Negative control: the provider's worker sends a duplicate 0.4 s after the push; count 1 with
  within 100ms must still see it (a within lengthens the wait for what must not happen, never
  shortens it).
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}; ( sleep 0.4; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} ) >/dev/null 2>&1 &
steps:
  - register: alice
  - call: alice
  - expect apns: one push
    count: 1
    within: 100ms
