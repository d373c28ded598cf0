scenario: The provider keeps one connection to APNs across calls
teaches: |
  A provider keeps its connection to APNs open and sends call after call on it. Apple asks
  providers to keep connections open across many notifications rather than open one per push, and
  warns that opening and closing connections rapidly may be treated as a denial-of-service attack
  and the provider temporarily blocked. The classic curl-per-push service opens a connection for
  every push, pays a TLS handshake each time, and fails here.
phones:
  - name: alice
  - name: bob
steps:
  - register: alice
  - register: bob
  - call: alice
    from: carol
  - call: bob
    from: carol
  - call: alice
    from: dave
  - expect phone: alice
    outcome: rang
  - expect provider: one connection for three calls
    connections-at-most: 1
obligation: keeps one connection to APNs across calls
basis: apple
