scenario: A regular push to the regular token never reaches PushKit
teaches: |
  An app has two tokens: a PushKit (VoIP) token and a regular notification token. A push of type
  alert to the regular token and the bare bundle ID is accepted (200) and shown as a notification,
  but PushKit never sees it: no call is reported, nothing rings. Calls go to the VoIP token.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: com.ringside.testapp" -H "apns-push-type: alert" -d '{payload}' {url}/3/device/{token}
steps:
  - register: alice
    token: alert
  - call: alice
    from: bob
  - expect phone: alice
    outcome: not-delivered
    reason: not-a-voip-push
    rules: [regular-notification]
