scenario: After a reinstall the old token answers 200 for an hour, rings nothing, then 410
teaches: |
  APNs reports an uninstalled app's token as 410 Unregistered only after some undefined delay
  (here an hour). Until then pushes to the old token are accepted but reach no phone. Two hours
  later the provider's JWT is old too: a correct provider signs a new one, gets the 410 and forgets
  the token.
apns:
  auth: token
world:
  unregister-delay: 1h
phones:
  - name: alice
steps:
  - register: alice
  - reinstall: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: not-delivered
    reason: token-dead
    rules: [token-retired]
  - advance: 2h
  - call: alice
    from: bob
  - call: alice
    from: bob
  - expect apns: unregistered
    count: 1
    status: 410
  - expect provider: tokens
    never-pushes: alice
    refreshed-jwt: true
obligation: forgets an old token once it answers 410, and renews its JWT within the hour
basis: apple
