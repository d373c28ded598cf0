scenario: a daemon whose main thread ended is still running
teaches: |
  Negative control (issue 45, second adversary): the provider leaves a process whose main thread called pthread_exit (/proc says Z) while a worker thread sleeps, then pushes the call again. It runs: the duplicate is awaited.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}; python3 {dir}/../providers/ghost.py 1 /usr/bin/curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} >/dev/null 2>&1 &
steps:
  - register: alice
  - call: alice
  - expect apns: one push per call
    count: 1
