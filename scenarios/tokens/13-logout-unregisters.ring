scenario: After logout the provider unregisters the token, and the phone stays quiet (incident 12)
teaches: |
  APNs knows nothing of logins: a token stays valid after the user logs out. Only the provider can
  stop a logged-out phone from ringing for the previous user, by unregistering its token.
phones:
  - name: alice
steps:
  - register: alice
  - unregister: alice
  - call: alice
    from: bob
  - expect apns: nothing sent
    count: 0
