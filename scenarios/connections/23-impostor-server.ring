scenario: A server whose certificate does not lead to the configured CA gets nothing
teaches: |
  TLS proves that the other end is APNs only if the provider checks the server's certificate chain
  and name. Here the server presents a certificate from a CA the provider does not trust (an
  intercepting proxy, a wrong DNS entry). A careful provider refuses the handshake, sends nothing -
  no push, no provider token - and says so; a provider that skips verification hands its pushes and
  its JWT to whoever answered.
phones:
  - name: alice
steps:
  - register: alice
  - fault: untrusted-server-certificate
  - call: alice
    from: bob
  - expect apns: nothing reaches the impostor
    count: 0
  - expect provider: stops and says why
    stopped: certificate verify failed
obligation: refuses a server whose certificate does not lead to the configured CA
basis: apple
