scenario: "Where the oldest stored push is kept instead (keep-stored: oldest)"
teaches: |
  Which of several pushes APNs keeps for an offline phone has been reported both ways. Apple
  documents the latest; `keep-stored: oldest` models the other report, so that a provider can be
  tested against both: here the second push is the one dropped.
world:
  keep-stored: oldest
phones:
  - name: alice
    online: false
provider:
  builtin: non-zero-expiration
steps:
  - register: alice
  - call: alice
    from: bob
    as: first
  - call: alice
    from: carol
    as: second
  - expect phone: alice
    call: second
    outcome: not-delivered
    reason: replaced-while-stored
    rules: [stored-keeps-oldest]
  - online: alice
  - expect phone: alice
    call: first
    outcome: rang
