scenario: An app that never reports its VoIP pushes is killed, then cut off (incident 3)
teaches: |
  Since iOS 13 an app must report every VoIP push to CallKit before its delegate returns, or it is
  killed. After repeated failures iOS stops delivering VoIP pushes to the app until it is
  reinstalled (the count is a setting: Apple documents none), so even correct calls stop ringing.
world:
  unreported-limit: 2
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        behaviour: never-reports
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: app-killed
    reason: delegate-returned-without-report
    rules: [app-never-reports, ios13-must-report, killed-when-delegate-returned]
  - call: alice
    from: bob
  - expect phone: alice
    outcome: app-killed
    rules: [delivery-stopped-after-kills]
  - call: alice
    from: bob
  - expect phone: alice
    outcome: not-delivered
    reason: app-blocked
    rules: [delivery-blocked]
obligation: sends each call's VoIP push to the app; an app that never reports them is cut off by iOS
basis: apple
