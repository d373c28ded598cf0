scenario: An app that waits for the network before reporting the call is killed (incident 11)
teaches: |
  PushKit wants the VoIP push reported to CallKit before the push handler returns, within a few
  seconds. An app that first awaits a network round trip (fetching a JWT, creating a session) is
  killed either way: if its handler returns before the answer, for returning without a report; if
  it blocks until the answer and the network is slow, for missing the deadline (0xbaadca11). Report
  at once with what the push carries and update the call afterwards. The push itself was right.
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        behaviour: reports-after-round-trip
        round-trip: 1s
  - name: dave
    apps:
      - bundle: com.ringside.testapp
        behaviour: reports-after-round-trip
        round-trip: 9s
        blocking: true
  - name: bob
steps:
  - register: alice
  - register: dave
  - register: bob
  - call: alice
    from: carol
  - call: dave
    from: carol
  - call: bob
    from: carol
  - advance: 10s
  - expect phone: alice
    outcome: app-killed
    reason: delegate-returned-without-report
    rules: [async-round-trip, killed-when-delegate-returned]
  - expect phone: dave
    outcome: app-killed
    reason: callservicesd-0xbaadca11
    rules: [blocking-round-trip, killed-by-callservicesd]
  - expect phone: bob
    outcome: rang
obligation: sends a VoIP push that carries what the app needs to report the call at once
basis: apple
