scenario: HTTP/1.1 to APNs is no sign of life
teaches: |
  Negative control (issue 45, second adversary): curl --http1.1 offers ALPN without h2 and is refused in the handshake before any certificate; it never pushed, so that the logged-out phone got nothing proves nothing.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http1.1 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} || true
steps:
  - register: alice
  - unregister: alice
  - call: alice
  - expect apns: nothing sent to the logged-out phone
    phone: alice
    count: 0
