scenario: After 410 Unregistered the service forgets the token (incident 2)
teaches: |
  The app was deleted: APNs answers 410 Unregistered. Pushing that token again is wasted work that
  APNs may count against the service; a correct backend forgets it at once.
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
  - uninstall: alice
  - call: alice
    from: bob
  - call: alice
    from: bob
  - expect apns: one 410, then silence
    count: 1
    status: 410
    reason: Unregistered
  - expect provider: tokens
    never-pushes: alice
