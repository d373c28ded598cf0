scenario: A connection that answers 500 to everything is replaced, and the call rings
teaches: |
  Sometimes one connection goes bad while APNs is fine: a load balancer keeps it open to a backend
  that answers every request with 500 InternalServerError. Backing off on that connection does not
  help. A careful provider notices that the same connection failed twice in a row, retires it and
  sends the push on a new one; a provider that sticks to the sick connection gives up and the phone
  never rings.
phones:
  - name: alice
steps:
  - register: alice
  - call: alice
    from: bob
  - fault: stale-connections
    seconds: 30s
  - advance: 1m
  - call: alice
    from: carol
    as: later
  - expect apns: the old connection is sick
    status: 500
    reason: InternalServerError
    count: 2
  - expect phone: alice
    outcome: rang
    call: later
obligation: replaces a connection that answers 500 to everything, and the call rings
basis: practice
