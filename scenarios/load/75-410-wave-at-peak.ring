scenario: A wave of 410s at the Monday peak (incident 2, at scale)
teaches: |
  After a bad release one user in ten uninstalled the app over the weekend. On Monday morning the
  calls start: every push to those phones is answered 410 Unregistered. A provider that forgets a
  token at its first 410 pushes each dead token once; one that keeps them pushes them again at
  every call, the wall of 410s grows with the peak, and APNs may throttle the whole app for it.
  The other calls must ring all the same.
world:
  unregister-delay: 0s
steps:
  - load: monday peak
    phones: 200
    uninstalled: 10%
    calls: 300
    rate: 300/s
  - expect load: the others ring, and no dead token is pushed again
    rang-at-least: 85%
    ring-p95-at-most: 5s
    dead-token-pushes-at-most: 0
obligation: forgets a token at its first 410 during a wave of uninstalls at the peak, and the other calls ring
basis: apple
