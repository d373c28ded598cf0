scenario: "Folklore: a daily budget of VoIP pushes"
teaches: |
  Some practitioners report that apps without an "unrestricted" entitlement get a limited number of
  VoIP pushes a day. Apple does not document it; Ringside models it only when asked
  (folklore: daily-voip-budget, 10 a day here) and says so in every report that used it.
apns:
  folklore: [daily-voip-budget]
phones:
  - name: alice
steps:
  - register: alice
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - call: alice
    from: bob
  - expect phone: alice
    outcome: not-delivered
    reason: daily-budget
    rules: [daily-voip-budget]
obligation: keeps within a daily budget of VoIP pushes
basis: folklore
