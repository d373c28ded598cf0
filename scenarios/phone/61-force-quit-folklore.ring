scenario: "Folklore: a force-quit app gets no VoIP pushes until it is launched again"
teaches: |
  Practitioners report that after the user swipes the app away, VoIP pushes stop reaching it until
  it is opened again; Apple does not document it. Ringside models it only when asked
  (folklore: force-quit-blocks-voip), and every report that used it says so.
apns:
  folklore: [force-quit-blocks-voip]
phones:
  - name: alice
steps:
  - register: alice
  - force-quit: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: not-delivered
    reason: force-quit
    rules: [force-quit]
  - relaunch: alice
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
obligation: rings an app again once it is launched after a force-quit
basis: folklore
