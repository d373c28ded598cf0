scenario: a curl that does not check the server's certificate pushes to the impostor
teaches: |
  Negative control (issue 45): the same curl one-liner as a correct provider, with -k. Where the
  correct one's refusal (exit 60) is the right outcome and passes, this one's push reaches the
  impostor and fails.
phones:
  - name: alice
provider:
  exec: curl -s -k -o /dev/null --http2 --max-time 5 -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-expiration: 0" --data-binary '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - fault: untrusted-server-certificate
  - call: alice
  - expect apns: nothing reaches the impostor
    count: 0
