scenario: a phantom ring just before the named call's push is seen by expect phone … call:
teaches: |
  Negative control (issue 45, found by an adversary; 13 without `call:`): the provider first pushes
  a made-up call id, which rings, then the right push. `expect phone: alice call: c1` judged only
  c1's pushes and passed; the user lived through a ring for no call.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{{"aps":{{}},"callUUID":"0f1e2d3c-4b5a-4968-8776-655443322110","handle":"x"}}' {url}/3/device/{token}; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    as: c1
  - expect phone: alice
    call: c1
    outcome: rang
