scenario: After logout the provider unregisters the token, and the phone stays quiet (incident 12)
teaches: |
  APNs knows nothing of logins: a token stays valid after the user logs out. Only the provider can
  stop a logged-out phone from ringing for the previous user, by unregistering its token. Carol
  stays logged in: her call shows the provider at work, so that alice's silence means something.
phones:
  - name: alice
  - name: carol
steps:
  - register: alice
  - register: carol
  - unregister: alice
  - call: alice
    from: bob
  - call: carol
    from: bob
  - expect phone: carol
    outcome: rang
  - expect apns: nothing sent to alice
    phone: alice
    count: 0
obligation: forgets a user's token at logout, and pushes it no more
basis: practice
