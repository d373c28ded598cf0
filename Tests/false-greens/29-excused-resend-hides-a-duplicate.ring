scenario: an excused resend does not hide an earlier duplicate
teaches: |
  Negative control (issue 45, second adversary): the provider sends a second request for the same call (another apns-id: a duplicate, its mistake), then resends the first while its delayed answer is on its way (excusable). The excused resend must not hide the duplicate.
phones:
  - name: alice
provider:
  exec: (curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000001" -d '{payload}' {url}/3/device/{token} &) ; sleep 0.2 ; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} ; sleep 0.1 ; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000001" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - fault: delay
    seconds: 1s
    count: 1
  - call: alice
  - expect phone: alice
    outcome: rang
