scenario: two pushes for one call, both 200, excused because the apns-id was first seen on a 410 to another token
teaches: |
  Negative control (like 09, found by an adversary): the provider sends every call twice with one fixed
  apns-id. APNs answered alice's first push 200, so her second push is no resend after an
  ambiguous answer: CallKit refuses it as a duplicate. The only difference from 09 is that the
  same apns-id was used earlier on a push to bob's dead token, which APNs answered 410.
phones:
  - name: alice
  - name: bob
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000001" -d '{payload}' {url}/3/device/{token} && curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000001" -d '{payload}' {url}/3/device/{token}
steps:
  - register: bob
  - uninstall: bob
  - call: bob
  - register: alice
  - call: alice
  - expect phone: alice
    outcome: rang
