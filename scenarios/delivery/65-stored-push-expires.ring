scenario: A stored push expires if the phone stays offline past its expiration
teaches: |
  A push with apns-expiration in the future is stored while the phone is offline, until that time.
  If the phone comes back later, the push is gone: here the provider asked for a day and the phone
  was away for two.
phones:
  - name: alice
    online: false
provider:
  builtin: non-zero-expiration
steps:
  - register: alice
  - call: alice
    from: bob
  - advance: 2d
  - online: alice
  - expect phone: alice
    outcome: not-delivered
    reason: expired
    rules: [stored-while-offline, stored-expired]
