scenario: a GET of APNs's root is no sign of life
teaches: |
  Negative control (like 04, found by an adversary): the provider never sends a push; it only makes an
  HTTP/2 GET request to APNs (a health check). never-pushes is vacuous.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" {url}/
steps:
  - register: alice
  - call: alice
  - expect provider: no push after a refusal
    never-pushes: alice
