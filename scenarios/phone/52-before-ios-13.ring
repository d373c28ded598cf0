scenario: Before iOS 13 a VoIP push did not have to ring
teaches: |
  Until iOS 13 an app could take a VoIP push and do anything with it, silently. Since iOS 13 every
  VoIP push must be reported to CallKit as a call before the delegate returns. An app still on
  iOS 12 that never reports is not killed: nothing rings, and nothing else happens.
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        ios: "12.5"
        behaviour: never-reports
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: not-delivered
    reason: not-reported-allowed
    rules: [handed-to-app, app-never-reports, before-ios-13, not-reported-allowed]
obligation: sends a VoIP push that reaches an iOS 12 app (which need not report it)
basis: apple
