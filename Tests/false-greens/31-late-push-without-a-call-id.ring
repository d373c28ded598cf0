scenario: a late push that names no call, after the line and before the next call, is the line's
teaches: |
  Negative control (issue 45, second adversary): the service pushes the call, then 3 s later
  pushes the same phone again with a payload that names no call (a "cancel" as VoIP push). The count
  held at its line; the late push comes during `wait:`, before any step that drives the provider,
  and the end's second verdict counts it.
phones:
  - name: alice
provider:
  http: python3 {dir}/../providers/http_provider.py --late-push-without-call-id=3
  register: POST /register {"user":"{user}","token":"{token}"}
  unregister: POST /unregister {"token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
steps:
  - register: alice
  - call: alice
    from: bob
  - expect apns: one push per call
    count: 1
  - wait: 4s
