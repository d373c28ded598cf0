scenario: A client certificate that is not an APNs certificate: BadCertificate
teaches: |
  With certificate authentication the TLS client certificate is the credential: it must be one
  Apple issued for APNs, carrying the app's topics and environments. A certificate from the
  right CA without them is 403 BadCertificate.
apns:
  certificate: plain
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" --cert "{cert}" --key "{certKey}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: BadCertificate
    count: 1
    status: 403
    reason: BadCertificate
