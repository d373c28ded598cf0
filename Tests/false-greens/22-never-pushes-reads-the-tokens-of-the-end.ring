scenario: never-pushes judges the tokens the phone has at the end, not where the line is written
teaches: |
  Negative control (issue 45, found by an adversary): the expectation is written before a reinstall
  gives alice a new token. The provider keeps pushing that token after APNs answered 410 for it.
  Judged at the end, never-pushes reads the tokens of the end, and the second push to it is seen.
phones:
  - name: alice
steps:
  - register: alice
  - expect provider: no push after a 410
    never-pushes: alice
  - unregister: alice
  - reinstall: alice
  - register: alice
  - uninstall: alice
  - call: alice
  - call: alice
provider:
  http: python3 {dir}/../providers/http_provider.py --keeps-pushing-after-410
  register: POST /register {"user":"{user}","token":"{token}"}
  unregister: POST /unregister {"token":"{token}"}
  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
