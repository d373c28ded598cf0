scenario: After GOAWAY, the next call still rings (incident 1)
teaches: |
  A provider that keeps one cached connection and only watches for error answers never notices
  GOAWAY: its requests fail without an answer and nothing rings for hours. A correct provider opens
  a new connection and the next call rings.
phones:
  - name: alice
  - name: bob
steps:
  - register: alice
    as: team
  - register: bob
    as: team
  - fault: goaway
    after-accepted: 1
  - call: team
    from: carol
  - call: team
    from: carol
    as: later
  - expect phone: alice
    outcome: rang
    call: later
  - expect phone: bob
    outcome: rang
    call: later
obligation: opens a new connection after GOAWAY, so the next call still rings
basis: apple
