scenario: A stored VoIP push rings after the caller hung up (incident 4)
teaches: |
  A provider that sets a non-zero apns-expiration lets APNs store the push while the phone is
  offline. The call times out; the phone comes back online two minutes later and rings for a call
  that no longer exists: a ghost call.
phones:
  - name: alice
    online: false
provider:
  builtin: non-zero-expiration
steps:
  - register: alice
  - call: alice
    from: bob
  - advance: 2m
  - online: alice
  - expect phone: alice
    outcome: rang-late
    rules: [stored-while-offline, delivered-when-back-online, rang-late]
