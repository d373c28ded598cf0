scenario: The provider backs off on 503 and the call still rings
teaches: |
  APNs may answer 503 ServiceUnavailable. A correct provider retries with bounded exponential
  back-off and jitter instead of hammering APNs, and the call goes through.
phones:
  - name: alice
steps:
  - register: alice
  - fault: ServiceUnavailable
    count: 2
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
  - expect provider: back-off
    retried: 2
  - expect apns: the 503s
    count: 2
    reason: ServiceUnavailable
obligation: retries a 503 ServiceUnavailable with back-off, and the call still rings
basis: apple
