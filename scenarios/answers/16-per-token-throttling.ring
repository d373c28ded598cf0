scenario: One token is throttled, the other phones still ring (incident 10)
teaches: |
  APNs limits how often one device token may be pushed: past the limit it answers 429
  TooManyRequests for that token only (Apple gives no numbers; here 2 a minute, a world setting).
  A correct provider backs off for that token and keeps delivering to the others.
world:
  throttle: 2 per 60s
phones:
  - name: alice
  - name: bob
steps:
  - register: alice
  - register: bob
  - call: alice
    from: carol
  - call: alice
    from: carol
  - call: alice
    from: carol
    as: third
  - call: bob
    from: carol
    as: meanwhile
  - expect apns: alice throttled
    status: 429
    reason: TooManyRequests
    phone: alice
  - expect apns: bob not throttled
    count: 1
    status: 200
    phone: bob
  - expect phone: bob
    outcome: rang
    call: meanwhile
  # No retry is owed (the throttle lasts longer than a caller waits); one sent at once hammers the token.
  - expect provider: any retry backs off
    retried: 0
obligation: keeps ringing the other phones while one token is throttled (429)
basis: apple
