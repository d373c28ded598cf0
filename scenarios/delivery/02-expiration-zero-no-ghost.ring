scenario: With apns-expiration 0 an offline phone never rings late
teaches: |
  The reference provider sends VoIP pushes with apns-expiration 0: APNs makes one attempt and does
  not store the push. When the phone is offline, the call is simply missed; nothing rings later.
phones:
  - name: alice
    online: false
steps:
  - register: alice
  - call: alice
    from: bob
  - advance: 2m
  - online: alice
  - expect phone: alice
    outcome: not-delivered
    reason: offline-not-stored
    rules: [expiration-zero-not-stored]
obligation: sends VoIP pushes with apns-expiration 0, so an offline phone never rings late
basis: practice
