scenario: One hot user throttled at the peak, the others still ring (incident 10, at scale)
teaches: |
  One user gets a third of the calls (a support line, a test account left in a script). APNs
  throttles that one device token with 429 TooManyRequests and nobody else. The provider must keep
  ringing everyone else, and not hammer the throttled token: every retry sent at once is another
  429.
world:
  throttle: 5 per 10s
steps:
  - load: hot user
    phones: 100
    calls: 60
    rate: 60/s
    hot-user: 30%
  - expect load: the others ring
    rang-at-least: 65%
  # No retry of a 429 is owed; one sent at once hammers the throttled token.
  - expect provider: any retry backs off
    retried: 0
obligation: keeps ringing everyone else while one hot user's token is throttled, without hammering it
basis: apple
