# The same service with incident 2's mistake: it keeps pushing to tokens APNs answered 410.
provider:
  http: python3 {dir}/http_provider.py --keeps-pushing-after-410
  register: POST /register {"user":"{user}","token":"{token}"}
  unregister: POST /unregister {"token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
  auth: token
