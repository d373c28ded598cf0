scenario: cleartext HTTP/2 to the TLS port is no sign of life, and no way to refuse an impostor
teaches: |
  Negative control (issue 45, found by an adversary): the provider speaks cleartext HTTP/2 (prior
  knowledge) to APNs's TLS port, sending its JWT and payload unencrypted. APNs is TLS only: the
  mock refuses it as "did not speak TLS", which is neither a push nor a refusal of the impostor.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2-prior-knowledge --max-time 5 -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" --data-binary '{payload}' http://127.0.0.1:$APNS_PORT/3/device/{token} || true
steps:
  - register: alice
  - fault: untrusted-server-certificate
  - call: alice
  - expect apns: nothing reaches the impostor
    count: 0
