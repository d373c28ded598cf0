scenario: Location pushes need token authentication: Forbidden
teaches: |
  Some push types are only allowed with provider tokens: a location push on a certificate
  connection is 403 Forbidden, whatever the certificate carries.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" --cert "{cert}" --key "{certKey}" -H "apns-topic: com.ringside.testapp.location-query" -H "apns-push-type: location" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: Forbidden
    count: 1
    status: 403
    reason: Forbidden
