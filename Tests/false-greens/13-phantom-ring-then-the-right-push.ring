scenario: a phantom ring (made-up call id) followed by the right push
teaches: |
  Negative control: the provider first sends a push with a call id no call was given (the phone rings
  a phantom call), then the right push. The phantom ring is what the user lived through.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{{"aps":{{}},"callUUID":"0f1e2d3c-4b5a-4968-8776-655443322110","handle":"x"}}' {url}/3/device/{token}; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
  - expect phone: alice
    outcome: rang
