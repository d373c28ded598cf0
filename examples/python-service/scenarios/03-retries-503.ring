scenario: A 503 from APNs is retried with back-off and the call still rings
teaches: |
  APNs answers 503 ServiceUnavailable when it is overloaded: the push is not lost if the backend
  tries again a little later, waiting longer each time.
phones:
  - name: alice
provider:
  http: python3 {dir}/../service.py
  ready: http://127.0.0.1:{port}/health
  register: POST /register {"user":"{user}","token":"{token}","kind":"{kind}"}
  unregister: POST /unregister {"user":"{user}","token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
steps:
  - register: alice
  - fault: ServiceUnavailable
    count: 2
    phone: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
  - expect provider: back-off
    retried: 2
