scenario: GOAWAY BadCertificateEnvironment is a configuration error - stop, do not reconnect
teaches: |
  A certificate issued for production only, used against the sandbox: APNs answers the first
  request with GOAWAY {"reason":"BadCertificateEnvironment"} and last-stream-id 0, then closes the
  connection. No retry heals a configuration error. A careful provider stops sending on that
  configuration and raises one clear alarm; a provider that treats every lost connection as
  transient reconnects again and again (a reconnect storm, which APNs may take for an attack) and
  still rings nobody.
apns:
  auth: certificate
  certificate: production-only
phones:
  - name: alice
steps:
  - register: alice
  - call: alice
    from: bob
  - call: alice
    from: carol
  - call: alice
    from: dave
  - expect apns: the certificate is for the other environment
    reason: BadCertificateEnvironment
  - expect provider: no reconnect storm, no new connection for the next calls
    connections-at-most: 1
  - expect provider: one clear alarm
    stopped: BadCertificateEnvironment
obligation: stops on GOAWAY BadCertificateEnvironment instead of reconnecting
basis: practice
