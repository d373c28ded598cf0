scenario: a stateless one-liner fails the logout requirement
teaches: |
  Negative control: the runner keeps no token store for an exec provider; a command that keeps no
  state pushes to the logged-out phone.
phones:
  - name: alice
  - name: carol
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - register: carol
  - unregister: alice
  - call: alice
  - call: carol
  - expect apns: nothing sent to alice
    phone: alice
    count: 0
