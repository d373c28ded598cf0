scenario: A provider in Python (standard library only) rings, backs off on 503, forgets a token after its 410
teaches: |
  The http adapter starts a provider service, waits for it, and drives it over its own HTTP API.
phones:
  - name: alice
provider:
  http: python3 {dir}/../../providers/http_provider.py
  ready: http://127.0.0.1:{port}/health
  register: POST /register {"user":"{user}","token":"{token}"}
  unregister: POST /unregister {"token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
steps:
  - register: alice
  - call: alice
    from: carol
  - expect phone: alice
    outcome: rang
  - fault: ServiceUnavailable
    count: 2
  - call: alice
    from: carol
    as: second
  - expect phone: alice
    outcome: rang
    call: second
  - expect provider: back-off
    retried: 2
  - uninstall: alice
  - call: alice
    from: carol
  - call: alice
    from: carol
  - expect apns: dead token
    count: 1
    status: 410
  - expect provider: tokens
    never-pushes: alice
