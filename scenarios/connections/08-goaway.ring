scenario: After GOAWAY the provider sends again on a new connection (incident 1)
teaches: |
  APNs may close a connection with GOAWAY and a last-stream-id: streams above it were never
  processed. A provider that notices opens a new connection and sends them again; every phone rings.
phones:
  - name: alice
  - name: bob
  - name: carol
steps:
  - register: alice
    as: team
  - register: bob
    as: team
  - register: carol
    as: team
  - fault: goaway
    after-accepted: 1
  - call: team
    from: dave
  - expect phone: alice
    outcome: rang
  - expect phone: bob
    outcome: rang
  - expect phone: carol
    outcome: rang
  - expect provider: connections
    reconnected: true
  - expect apns: the GOAWAY
    count: 1
    goaway: Shutdown
obligation: sends again on a new connection what APNs dropped with GOAWAY
basis: apple
