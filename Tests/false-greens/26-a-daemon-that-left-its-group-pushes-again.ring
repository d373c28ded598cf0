scenario: a push from a daemon that left the command's group and cleared its environment is awaited
teaches: |
  Negative control (issue 45, found by an adversary): the exec provider pushes, then leaves a
  daemon behind (setsid env -i: a new session, no environment) that pushes the same call again a
  second later. The runner adopts orphans (a subreaper): the daemon is the command's, and is awaited.
phones:
  - name: alice
provider:
  exec: curl -s -o /dev/null --http2 --max-time 5 --cacert {ca} -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}; setsid env -i sh -c 'sleep 1; curl -s -o /dev/null --http2 --max-time 5 --cacert {ca} -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '\''{payload}'\'' {url}/3/device/{token}' >/dev/null 2>&1 &
steps:
  - register: alice
  - call: alice
  - expect apns: one push
    count: 1
