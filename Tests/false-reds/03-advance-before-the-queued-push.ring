scenario: a blocking app killed 10 s into its round trip; the queue pushes 1 s after the call (within settles-within 2s)
phones:
  - name: dave
    apps:
      - bundle: com.ringside.testapp
        behaviour: reports-after-round-trip
        round-trip: 9s
        blocking: true
provider:
  http: python3 {dir}/../providers/http_provider.py --queue-delay=1
  register: POST /register {"user":"{user}","token":"{token}"}
  unregister: POST /unregister {"token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
steps:
  - register: dave
  - call: dave
    from: carol
  - advance: 10s
  - expect phone: dave
    outcome: app-killed
    reason: callservicesd-0xbaadca11
