scenario: An app without the CallKit entitlement cannot ring
teaches: |
  Reporting a call needs the app to be allowed to use CallKit. Without the entitlement every report
  fails with unentitled: the push arrives, the app reports, CallKit refuses, and nothing rings.
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        entitled: false
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: call-refused
    reason: unentitled
    rules: [unentitled]
obligation: sends a correct push even to an app without the CallKit entitlement
basis: apple
