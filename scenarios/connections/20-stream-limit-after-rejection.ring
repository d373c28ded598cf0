scenario: After a rejected push APNs allows one stream at a time, and the call still rings (incident 9)
teaches: |
  APNs says how many requests a connection may carry at once (SETTINGS_MAX_CONCURRENT_STREAMS): one
  until the first valid JWT, then 1000, and (observed) one again right after a rejected push, back
  up after the next accepted one. A provider must keep its requests within that number: requests
  piled past it are refused (RST_STREAM REFUSED_STREAM) or end the connection with GOAWAY "Maximum
  active streams violated". HTTP/2 libraries hold them back for you, if you let them.
phones:
  - name: alice
  - name: bob
  - name: carol
  - name: erin
steps:
  - register: alice
    as: team
  - register: bob
    as: team
  - register: carol
    as: team
  - register: erin
    as: team
  - uninstall: alice
  - fault: lower-streams-after-rejection
  - call: team
    from: dave
  - expect apns: the uninstalled app's token
    count: 1
    status: 410
  - expect phone: bob
    outcome: rang
  - expect phone: carol
    outcome: rang
  - expect phone: erin
    outcome: rang
  - expect apns: all pushes answered
    count: 4
obligation: honours the stream limit APNs lowers after a rejection, and the call still rings
basis: apple
