scenario: apns-expiration is a number of seconds since 1970: BadExpirationDate
teaches: |
  apns-expiration is a UNIX time in seconds (or 0: do not store). A date written as text, or
  anything that is not digits, is 400 BadExpirationDate. For a VoIP push it is 0: a call that
  rings late is a ghost call.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: tomorrow" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: BadExpirationDate
    count: 1
    status: 400
    reason: BadExpirationDate
