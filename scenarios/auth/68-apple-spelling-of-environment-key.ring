scenario: "BadEnvironmentKeyIdInToken: Apple's spelling of the wrong-environment key"
teaches: |
  Apple's page names the answer to a key of the other environment BadEnvironmentKeyIdInToken; APNs
  has been seen to send BadEnvironmentKeyInToken (scenario 47). A provider should treat both as the
  same configuration error: no retry helps, so it does not send the push again.
apns:
  auth: token
phones:
  - name: alice
steps:
  - register: alice
  - fault: BadEnvironmentKeyIdInToken
  - call: alice
    from: bob
  - expect apns: the key is for the other environment
    count: 1
    reason: BadEnvironmentKeyIdInToken
obligation: reads BadEnvironmentKeyIdInToken as Apple spells it: a configuration error, not a retry
basis: apple
