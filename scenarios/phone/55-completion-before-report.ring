scenario: Calling the completion handler before reporting the call does not matter
teaches: |
  PushKit's delegate gets a completion handler, and many apps call it first, fearing a timeout.
  It plays no role in the rule (Apple DTS): what matters is that the call is reported to CallKit
  before the delegate returns. An app that completes first and then reports still rings.
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        behaviour: completes-before-reporting
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
    rules: [completion-before-report, reported-to-callkit, rang]
obligation: sends a VoIP push that rings an app calling the completion handler before it reports
basis: apple
