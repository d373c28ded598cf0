scenario: In the foreground or during a call an app need not report a VoIP push (iOS 26.4)
teaches: |
  iOS 26.4 tells the app, in metadata.mustReport, whether this push must become a call. It need not
  when the app is in the foreground or another call is in progress: an app that does not report
  then is not killed, and nothing rings. In the background, with no call, it must (carol).
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        ios: "26.4"
        behaviour: never-reports
  - name: bob
    apps:
      - bundle: com.ringside.testapp
        ios: "26.4"
        behaviour: never-reports
  - name: carol
    apps:
      - bundle: com.ringside.testapp
        ios: "26.4"
        behaviour: never-reports
steps:
  - register: alice
  - register: bob
  - register: carol
  - foreground: alice          # the user has the app open
  - on-call: bob               # bob is already on a call
  - call: alice
    from: dave
  - call: bob
    from: dave
  - call: carol
    from: dave
  - expect phone: alice
    outcome: not-delivered
    reason: not-reported-allowed
    rules: [no-report-in-foreground, not-reported-allowed]
  - expect phone: bob
    outcome: not-delivered
    reason: not-reported-allowed
    rules: [no-report-during-call]
  - expect phone: carol
    outcome: app-killed
    reason: delegate-returned-without-report
    rules: [must-report-true, killed-when-delegate-returned]
  - background: alice
  - on-call: bob
    on: false
  - call: alice
    from: dave
  - expect phone: alice
    outcome: app-killed
    rules: [must-report-true]
obligation: sends a VoIP push that reaches an app in the foreground or on another call (iOS 26.4)
basis: apple
