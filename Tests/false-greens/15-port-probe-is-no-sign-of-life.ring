scenario: a TCP port probe is no sign of life
teaches: |
  Negative control (like 05, found by an adversary): the provider never sends a push to anyone; it only
  opens a TCP connection to APNs's port and closes it (a liveness probe) before giving up. It
  never even started TLS. That alice got nothing proves nothing about logout handling.
phones:
  - name: alice
provider:
  exec: bash -c 'exec 3<>/dev/tcp/127.0.0.1/$APNS_PORT; exec 3>&-'
steps:
  - register: alice
  - unregister: alice
  - call: alice
  - expect apns: nothing sent
    count: 0
