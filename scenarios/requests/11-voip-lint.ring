scenario: Every VoIP push passes voip-lint
teaches: |
  The voip-lint profile refuses what Apple accepts but a VoIP provider must never send: a topic
  without .voip, a push type other than voip, a priority other than 10, a non-zero expiration.
  Each refusal says why it matters for a call.
apns:
  profile: voip-lint
phones:
  - name: alice
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: lint-clean
    count: 1
    status: 200
  - expect apns: right headers
    count: 1
    phone: alice
    header: "apns-priority: 10"
  - expect phone: alice
    outcome: rang
obligation: sends VoIP pushes as Apple asks: topic .voip, push type voip, priority 10, expiration 0
basis: apple
