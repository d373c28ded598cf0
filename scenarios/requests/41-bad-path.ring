scenario: The path is /3/device/<token>: BadPath
teaches: |
  Every push is a POST to /3/device/ followed by the device token. Any other path, /3/devices/
  say, is 404 BadPath.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/devices/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: BadPath
    count: 1
    status: 404
    reason: BadPath
