scenario: After a long network delay a VoIP push need not ring (iOS 26.4)
teaches: |
  A VoIP push that took too long to arrive is probably about a call that has ended: iOS 26.4 sets
  mustReport to false when the push was delayed in the network (here 40 s), and an app that does not
  report it is not killed.
world:
  delivery-latency: 40s
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        ios: "26.4"
        behaviour: never-reports
steps:
  - register: alice
  - call: alice
    from: bob
  - advance: 1m
  - expect phone: alice
    outcome: not-delivered
    reason: not-reported-allowed
    rules: [no-report-after-network-delay, not-reported-allowed]
obligation: sends a VoIP push that reaches the app even after a long network delay (iOS 26.4)
basis: apple
