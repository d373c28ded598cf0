scenario: A development build's token pushed through production is BadDeviceToken (incident 6)
teaches: |
  Sandbox and production are separate token spaces. A token from a development build (sandbox)
  sent to production APNs gets 400 BadDeviceToken although "the token is correct", and the phone
  stays silent. Send each token to the environment its build registered it in; and since APNs
  called it bad here, never push it here again.
apns:
  environment: production
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        environment: sandbox
steps:
  - register: alice
  - call: alice
    from: bob
  - call: alice
    from: bob
  - expect apns: wrong environment
    count: 1
    status: 400
    reason: BadDeviceToken
    phone: alice
  - expect provider: tokens
    never-pushes: alice
obligation: forgets a development token refused by production (BadDeviceToken)
basis: apple
