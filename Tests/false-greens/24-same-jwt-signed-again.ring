scenario: the same JWT signed again is no new JWT
teaches: |
  Negative control (issue 45, found by an adversary): after ExpiredProviderToken the provider signs
  the same header and claims again — the same iat, another ECDSA signature — and retries. The token
  is as old as before: a new JWT has a later iat (the positive twin signs one a second later).
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}; I={jwt}; J="${I%.*}.$(printf %s "${I%.*}" | openssl dgst -sha256 -sign "$APNS_KEY_FILE" | base64 -w0 | tr '+/' '-_' | tr -d '=')"; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer $J" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
  - fault: ExpiredProviderToken
    count: 1
  - call: alice
  - expect provider: a new JWT
    refreshed-jwt: true
