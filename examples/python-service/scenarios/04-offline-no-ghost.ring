scenario: A call to an offline phone is not stored, so it cannot ring late (incident 4)
teaches: |
  A call is over in half a minute. If APNs stored the push for an offline phone, the phone would
  ring when it came back, long after the caller hung up: a ghost call. The service's expiration of
  "now" tells APNs not to store it.
phones:
  - name: alice
    online: false
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
  - advance: 2m
  - online: alice
  - expect phone: alice
    outcome: not-delivered
    reason: offline-not-stored
