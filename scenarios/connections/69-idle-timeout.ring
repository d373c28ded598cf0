scenario: APNs closes an idle connection with GOAWAY IdleTimeout; the provider opens a new one
teaches: |
  APNs closes connections that carried nothing for a while, with GOAWAY and the reason IdleTimeout
  (how long is undocumented; here the fault sends it after the first push). Nothing is lost: a
  provider opens a new connection for the next push, and the next call rings.
phones:
  - name: alice
steps:
  - register: alice
  - fault: goaway
    reason: IdleTimeout
  - call: alice
    from: bob
  - call: alice
    from: carol
  - expect phone: alice
    outcome: rang
  - expect provider: new connection
    reconnected: true
  - expect apns: the GOAWAY
    count: 1
    goaway: IdleTimeout
obligation: opens a new connection after GOAWAY IdleTimeout, and the call rings
basis: apple
