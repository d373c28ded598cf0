# A provider file (`ringside run scenarios --provider-file Tests/providers/http-provider.ring`): the
# Python service beside it, driven over its HTTP API; {dir} is this file's folder.
provider:
  http: python3 {dir}/http_provider.py
  register: POST /register {"user":"{user}","token":"{token}"}
  unregister: POST /unregister {"token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
  auth: token
