scenario: APNs stores one push per app for an offline phone
teaches: |
  While a phone is offline APNs keeps at most one push per app; a newer one replaces the older
  (Apple: "only the last one is stored"). A provider that sends three pushes to an offline phone
  gets three 200s, and the phone sees only the last when it comes back.
phones:
  - name: alice
    online: false
provider:
  builtin: non-zero-expiration
steps:
  - register: alice
  - call: alice
    from: bob
    as: first
  - call: alice
    from: carol
    as: second
  - expect phone: alice
    call: first
    outcome: not-delivered
    reason: replaced-while-stored
    rules: [stored-while-offline, stored-replaced-by-newer]
  - online: alice
  - expect phone: alice
    call: second
    outcome: rang
    rules: [delivered-when-back-online]
