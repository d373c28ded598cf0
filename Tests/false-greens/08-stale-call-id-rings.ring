scenario: a push that carries another call's id rings no call of this one
teaches: |
  Negative control: the provider sends a stale payload whose call id no call of this scenario was
  given; the phone rings, but not for the call placed.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{{"aps":{{}},"callUUID":"0f1e2d3c-4b5a-4968-8776-655443322110","handle":"x"}}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
  - expect phone: alice
    outcome: rang
