scenario: a phone offline at the call, online 100 ms later; the queue pushes 1 s after the call (within settles-within 2s)
phones:
  - name: alice
provider:
  http: python3 {dir}/../providers/http_provider.py --queue-delay=1
  register: POST /register {"user":"{user}","token":"{token}"}
  unregister: POST /unregister {"token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
steps:
  - register: alice
  - offline: alice
  - call: alice
    from: bob
  - wait: 100ms
  - online: alice
  - expect phone: alice
    outcome: not-delivered
    reason: offline-not-stored
