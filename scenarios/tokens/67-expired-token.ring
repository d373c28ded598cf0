scenario: "ExpiredToken: a token APNs no longer accepts, forgotten like a 410"
teaches: |
  Apple documents 410 ExpiredToken for a device token that has expired. Ringside's world does not
  make tokens expire by themselves, so a fault answers with it: a correct provider treats it as it
  treats Unregistered, forgets the token and never pushes it again.
phones:
  - name: alice
steps:
  - register: alice
  - fault: ExpiredToken
    phone: alice
  - call: alice
    from: bob
  - call: alice
    from: bob
  - expect apns: expired token
    count: 1
    reason: ExpiredToken
  - expect provider: tokens
    never-pushes: alice
obligation: forgets a token after 410 ExpiredToken, as after Unregistered
basis: apple
