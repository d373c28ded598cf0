scenario: a GET to a device token's path is no sign of life
teaches: |
  Negative control (issue 45, found by an adversary): the provider never pushes; it sends a GET to
  /3/device/<token> (APNs answers 405 MethodNotAllowed). A GET delivers nothing: that alice got no
  push after logging out proves nothing about logout handling.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" {url}/3/device/{token}
steps:
  - register: alice
  - unregister: alice
  - call: alice
  - expect apns: nothing delivered to alice
    phone: alice
    status: 200
    count: 0
