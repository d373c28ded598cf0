scenario: A second, unrelated key on a connection: UnrelatedKeyIdInToken
teaches: |
  A connection is bound to the key of the first JWT it verified. A JWT signed by another key of
  the team that is not related to it, on the same connection, is 403 UnrelatedKeyIdInToken: use
  one key per connection. Here curl sends two pushes on one connection, the second signed with
  another key.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} --next curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer $("$RINGSIDE" token --key-id RINGKEY005)" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: UnrelatedKeyIdInToken
    count: 1
    status: 403
    reason: UnrelatedKeyIdInToken
