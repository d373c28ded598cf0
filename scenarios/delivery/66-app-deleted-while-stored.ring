scenario: A push stored while the app is deleted is never delivered
teaches: |
  APNs accepted and stored the push; meanwhile the user deleted the app. When the phone comes back
  online there is nothing to hand the push to. The provider learns of the deletion only from a
  later 410.
phones:
  - name: alice
    online: false
provider:
  builtin: non-zero-expiration
steps:
  - register: alice
  - call: alice
    from: bob
  - uninstall: alice
  - online: alice
  - expect phone: alice
    outcome: not-delivered
    reason: app-not-installed
    rules: [app-not-installed]
