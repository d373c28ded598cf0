scenario: A second VoIP push for the same call is refused by CallKit as a duplicate
teaches: |
  A provider that sends a call's push twice (a retry after a timeout that had in fact been
  delivered, or a second push to "update" the call) makes the app report the same call id again;
  CallKit refuses it with callUUIDAlreadyExists. The call rang once; the second push is wasted and,
  on an app that does not expect it, can leave a stuck call screen.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} && curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: two pushes
    count: 2
    status: 200
  - expect phone: alice
    outcome: duplicate
    rules: [duplicate-call]
