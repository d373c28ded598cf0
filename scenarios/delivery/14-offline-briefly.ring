scenario: A phone offline for a moment misses a call sent with expiration 0
teaches: |
  With apns-expiration 0 APNs makes one attempt. A phone that is offline at that moment misses the
  call, even if it is back a moment later: the caller should retry over the app's own channel.
phones:
  - name: alice
steps:
  - register: alice
  - offline: alice
  - call: alice
    from: bob
  - wait: 100ms
  - online: alice
  - expect phone: alice
    outcome: not-delivered
    reason: offline-not-stored
obligation: sends apns-expiration 0: a phone offline at the call misses it rather than ringing later
basis: practice
