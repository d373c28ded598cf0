scenario: A 410 storm gets the whole app throttled (folklore)
teaches: |
  When many users delete the app at once (a bad release, a reinstall wave), a provider that keeps
  pushing their dead tokens sends a storm of requests APNs answers 410. Practitioners report that
  APNs then throttles all of the team's pushes for a while: calls to users who did nothing wrong
  stop ringing. Apple does not document it, so it is opt-in (folklore: dead-token-penalty, here
  after three pushes to dead tokens). A provider that forgets each token at its first 410 never
  gets there, and zoe's call rings.
apns:
  folklore: [dead-token-penalty]
phones:
  - name: alice
  - name: bob
  - name: zoe
steps:
  - register: alice
  - register: bob
  - register: zoe
  - uninstall: alice
  - uninstall: bob
  - call: alice
    from: dave
  - call: bob
    from: dave
  - call: alice
    from: dave
  - call: bob
    from: dave
  - expect apns: one 410 per dead token
    count: 2
    status: 410
    reason: Unregistered
  - call: zoe
    from: dave
  - expect phone: zoe
    outcome: rang
obligation: stops pushing dead tokens before a 410 storm gets the app throttled
basis: folklore
