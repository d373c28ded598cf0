scenario: The regular notification token cannot carry a VoIP push (incident 7)
teaches: |
  An app has two tokens: the PushKit VoIP token and the regular notification token. Sending the
  regular one with the <bundle>.voip topic gets 400 DeviceTokenNotForTopic, and nothing rings.
phones:
  - name: alice
provider:
  builtin: uses-regular-token
steps:
  - register: alice
    token: alert
  - call: alice
    from: bob
  - expect apns: wrong token
    count: 1
    status: 400
    reason: DeviceTokenNotForTopic
