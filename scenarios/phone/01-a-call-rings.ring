scenario: A VoIP push to the phone's PushKit token rings
teaches: |
  The reference provider sends a VoIP push exactly right: topic <bundle>.voip, push type voip,
  priority 10, expiration 0, the call id and caller in the payload. PushKit hands it to the app,
  the app reports the call to CallKit before its delegate returns, and the phone rings.
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        ios: "26.4"
        behaviour: reports-at-once
provider:
  builtin: reference
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
    rules: [accepted, handed-to-app, must-report-true, reported-to-callkit, rang]
  - expect apns: accepted
    count: 1
    status: 200
obligation: sends a VoIP push that rings: topic .voip, push type voip, priority 10, expiration 0, the call in its payload
basis: apple
