scenario: A curl one-liner ignores 410 and pushes a dead token again (incident 2)
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --cacert {ca} -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-expiration: 0" --data-binary '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - uninstall: alice
  - call: alice
    from: bob
  - call: alice
    from: bob
  - expect provider: tokens
    never-pushes: alice
