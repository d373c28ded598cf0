scenario: An expired provider certificate fails the handshake and nothing rings (incident 8)
teaches: |
  A provider that authenticates with a certificate cannot even connect once it has expired: APNs
  refuses the TLS handshake, so there is no HTTP answer, no reason to log, and no call rings. Watch
  the certificate's expiry date, alert on handshake failures, or use token authentication. Do not
  hammer APNs with new connections: each will be refused the same way.
apns:
  auth: certificate
  certificate: expired
phones:
  - name: alice
steps:
  - register: alice
  - call: alice
    from: bob
  - call: alice
    from: carol
  - expect apns: the handshake
    refused: certificate has expired
    count: 0
  - expect provider: no reconnect storm
    connections-at-most: 2
obligation: stops when its certificate has expired, without a storm of reconnections
basis: practice
