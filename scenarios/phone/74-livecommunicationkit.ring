scenario: An app may report its calls to LiveCommunicationKit, from iOS 17.4
teaches: |
  Since iOS 17.4 an app may report an incoming VoIP call to LiveCommunicationKit
  (ConversationManager.reportNewIncomingConversation) instead of CallKit, under PushKit's same rule:
  report before the delegate returns. On an earlier iOS the framework is not there: nothing is
  reported, and PushKit kills the app as if it had not tried.
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        ios: "17.4"
        reports-with: livecommunicationkit
  - name: bob
    apps:
      - bundle: com.ringside.testapp
        ios: "17.0"
        reports-with: livecommunicationkit
steps:
  - register: alice
  - register: bob
  - call: alice
    from: carol
  - expect phone: alice
    outcome: rang
    rules: [ios13-must-report, reported-to-livecommunicationkit, rang]
  - call: bob
    from: carol
  - expect phone: bob
    outcome: app-killed
    reason: delegate-returned-without-report
    rules: [framework-unavailable, killed-when-delegate-returned]
obligation: rings an app that reports its calls to LiveCommunicationKit (iOS 17.4+)
basis: apple
