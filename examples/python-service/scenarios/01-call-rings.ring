scenario: Every call rings the phone, with VoIP pushes as Apple wants them, on one connection
teaches: |
  The service sends one push per PushKit token: push type voip, priority 10, the call id and caller
  in the payload. It keeps the token for the next call, and keeps one connection (and one JWT) for
  all its pushes: APNs treats a connection per push as a denial-of-service attack.
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
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
  - call: alice
    from: carol
  - expect phone: alice
    outcome: rang
  - expect apns: two pushes, as Apple wants them
    count: 2
    status: 200
    header: "apns-priority: 10"
  - expect provider: one connection
    connections-at-most: 1
