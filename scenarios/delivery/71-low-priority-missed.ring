scenario: A VoIP push at priority 5 is missed, not rung
teaches: |
  Priority 5 tells APNs to mind the phone's power: Apple says such pushes may be grouped, delayed
  or not delivered at all, and priority 1 never wakes the phone. A call cannot wait, so Ringside's
  phone misses the push (world: wrong-pushes-delivered: true rings it anyway). Send VoIP pushes
  with apns-priority 10.
phones:
  - name: alice
provider:
  builtin: priority-5
steps:
  - register: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: not-delivered
    reason: low-priority
    rules: [low-priority-missed]
