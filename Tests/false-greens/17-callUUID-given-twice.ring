scenario: a payload with callUUID twice, the stale id last
teaches: |
  Negative control: the provider's payload carries callUUID twice, this call's id first and a stale id
  last. iOS's JSONSerialization keeps the last value of a repeated key, so the app reports the
  stale id to CallKit: the ring is not this call's.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{{"aps":{{}},"callUUID":"{callId}","handle":"x","callUUID":"0f1e2d3c-4b5a-4968-8776-655443322110"}}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
  - expect phone: alice
    outcome: rang
