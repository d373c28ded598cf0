scenario: a request without a device token is no sign of life
teaches: |
  Negative control (issue 45, second adversary): a POST to /3/device/ with no token (400 MissingDeviceToken) pushes to no device; that the logged-out phone got nothing proves nothing.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/$DEVICE_TOKEN
steps:
  - register: alice
  - unregister: alice
  - call: alice
  - expect apns: nothing sent to the logged-out phone
    phone: alice
    count: 0
