scenario: A curl one-liner is a provider, and its VoIP push rings
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --cacert {ca} -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-expiration: 0" --data-binary '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
