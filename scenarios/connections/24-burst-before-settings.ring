scenario: One stream until the first valid JWT - a burst on a new connection loses no push
teaches: |
  On a connection with token authentication APNs allows one stream until a request carries a valid
  JWT, then raises MAX_CONCURRENT_STREAMS in a SETTINGS frame. A client that sends a burst before
  reading those SETTINGS gets every stream but the first refused with REFUSED_STREAM. Those pushes
  were never processed and may be sent again at once; a client that retries only on HTTP statuses
  (node-apn does) loses them, and four of the five phones stay silent. A careful client starts a new
  connection at one stream. Here the mock holds its SETTINGS for half a second after the handshake,
  so a client that does not wait for them always bursts, and a caller waits 5 s: a refused push sent
  again only after a timeout rings late.
apns:
  auth: token
world:
  ring-timeout: 5s
phones:
  - name: alice
  - name: bob
  - name: carol
  - name: dave
  - name: erin
steps:
  - fault: hold-settings
    seconds: 0.5s
  - register: alice
    as: team
  - register: bob
    as: team
  - register: carol
    as: team
  - register: dave
    as: team
  - register: erin
    as: team
  - call: team
    from: frank
  - expect phone: alice
    outcome: rang
  - expect phone: bob
    outcome: rang
  - expect phone: carol
    outcome: rang
  - expect phone: dave
    outcome: rang
  - expect phone: erin
    outcome: rang
obligation: loses no push of a burst sent before APNs raised the stream limit
basis: apple
