scenario: a resend after the delayed answer came back is no resend
teaches: |
  Negative control (issue 45, found by an adversary): APNs's first answer is held back 1 s by a
  delay fault, and arrives; the provider then sends the same push (its apns-id and call id) again
  1.5 s after the first. The answer was back: the resend is the provider's mistake, and CallKit
  refuses it as a duplicate. A resend sent before the answer came is excused (FalseGreenTests.resendBeforeTheAnswerIsExcused).
phones:
  - name: alice
provider:
  exec: (curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000001" -d '{payload}' {url}/3/device/{token} &) ; sleep 1.5 ; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -H "apns-id: 7e57ab1e-0000-4000-8000-000000000001" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - fault: delay
    seconds: 1s
    count: 1
  - call: alice
  - expect phone: alice
    outcome: rang
