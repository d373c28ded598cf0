scenario: a ghost ring is not hidden by a later push for the same call
teaches: |
  Negative control: the call's push arrives after the caller gave up (a ghost); a second push for
  the call comes after it. The call is judged by the ghost, not by the later push.
world:
  delivery-latency: 1500ms
  ring-timeout: 1s
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}; ( sleep 0.2; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000002" -d '{payload}' {url}/3/device/{token} ) >/dev/null 2>&1 &
steps:
  - register: alice
  - call: alice
    as: c1
  - expect phone: alice
    call: c1
    outcome: duplicate
    within: 5s
