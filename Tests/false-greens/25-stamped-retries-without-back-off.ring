scenario: retries of a push stamped with its attempt's time are still retries
teaches: |
  Negative control (issue 45, found by an adversary): the provider stamps each attempt's payload
  ("sentAt") and retries 503s at once. A retry is the same push to the same token for the same call
  (its call id), whatever else its payload says: these come back without back-off and fail. The
  positive twin waits 300 ms between attempts and passes (before, it was told "0 retries").
phones:
  - name: alice
provider:
  exec: for attempt in 1 2 3; do status=$(curl -s -o /dev/null -w '%{{http_code}}' --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d "{{\"aps\":{{}},\"callUUID\":\"{callId}\",\"handle\":\"{caller}\",\"sentAt\":$(date +%s%N)}}" {url}/3/device/{token}); [ "$status" = 503 ] || break; sleep 0; done
steps:
  - register: alice
  - fault: ServiceUnavailable
    count: 2
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
  - expect provider: back-off
    retried: 2
