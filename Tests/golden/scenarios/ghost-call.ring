# A VoIP push with a non-zero apns-expiration reaches a phone that was offline, after the call is over.
scenario: Ghost call after the caller hung up
teaches: |
  A VoIP push stored by APNs rings when the phone comes back online,
  long after the caller gave up. Send VoIP pushes with apns-expiration 0.
seed: 7
apns:
  environment: sandbox
  profile: apple
phones:
  - name: alice
    online: false
    apps:
      - bundle: com.ringside.testapp
        ios: "26.4"
        behaviour: reports-at-once
provider:
  builtin: non-zero-expiration
steps:
  - register: alice
  - call: alice
    from: bob
    as: first-call
  - advance: 2m
  - online: alice
  - expect phone: alice
    outcome: rang-late
    within: 5s
