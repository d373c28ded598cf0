scenario: A GOAWAY in the middle of a burst, and the calls still ring
teaches: |
  APNs closes a connection with GOAWAY while a burst of calls is under way. The pushes above the
  GOAWAY's last stream id were not processed: a provider that opens a new connection and sends
  them again rings every call; one that keeps the old connection loses every call after it.
steps:
  - fault: goaway
    after-accepted: 60
  - load: burst
    phones: 200
    calls: 200
    rate: 400/s
  - expect load: every call rings
    rang-at-least: 99%
obligation: moves to a new connection after a GOAWAY in the middle of a burst, and every call rings
basis: apple
