scenario: After a 410 the provider forgets the token (incident 2)
teaches: |
  Deleting the app retires its token: APNs answers 410 Unregistered with the time it stopped being
  valid. A correct provider forgets the token and never pushes it again.
phones:
  - name: alice
steps:
  - register: alice
  - uninstall: alice
  - call: alice
    from: bob
  - call: alice
    from: bob
  - expect apns: unregistered
    count: 1
    status: 410
    reason: Unregistered
  - expect provider: tokens
    never-pushes: alice
obligation: forgets a token after 410 Unregistered and never pushes it again
basis: apple
