scenario: A new JWT on the same connection within 20 minutes: TooManyProviderTokenUpdates
teaches: |
  A connection keeps the JWT it was first given; a different JWT on it within 20 minutes is 429
  TooManyProviderTokenUpdates. Sign once, reuse the JWT on every request, and renew it no more
  than every 20 minutes. Here curl sends two pushes on one connection, the second with a JWT
  signed a minute earlier.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} --next curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer $("$RINGSIDE" token --age 60)" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: TooManyProviderTokenUpdates
    count: 1
    status: 429
    reason: TooManyProviderTokenUpdates
