scenario: two calls in a row to a phone, pushed by a job queue 1 s later (within settles-within 2s)
phones:
  - name: alice
provider:
  http: python3 {dir}/../providers/http_provider.py --queue-delay=1
  register: POST /register {"user":"{user}","token":"{token}"}
  unregister: POST /unregister {"token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
steps:
  - register: alice
  - call: alice
    from: bob
  - call: alice
    from: carol
  - expect phone: alice
    outcome: rang
