scenario: A call rings the phone, with a VoIP push as Apple wants it
teaches: |
  The service sends one push per PushKit token: push type voip, priority 10, an expiration that
  has already passed (so APNs never stores it), the call id and caller in the payload.
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
  - expect apns: one push, as Apple wants it
    count: 1
    status: 200
    header: "apns-priority: 10"
