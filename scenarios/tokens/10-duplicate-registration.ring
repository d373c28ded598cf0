scenario: Registering the same device twice rings once, not twice (incident 12)
teaches: |
  Apps register their token on every launch. A provider that stores each registration as a new
  device sends two pushes per call, and the second report fails with callUUIDAlreadyExists. The
  reference provider keeps one entry per token.
phones:
  - name: alice
steps:
  - register: alice
  - register: alice
  - call: alice
    from: bob
  - expect apns: one push
    count: 1
    status: 200
  - expect phone: alice
    outcome: rang
    rules: [ios13-must-report, reported-to-callkit]
obligation: stores a device registered twice once, and rings it once
basis: practice
