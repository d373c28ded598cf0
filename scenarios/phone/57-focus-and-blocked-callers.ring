scenario: Focus and blocked callers stop a call at CallKit, after a perfect push
teaches: |
  APNs delivers and the app reports the call, yet the phone stays silent: CallKit refuses it with
  filteredByDoNotDisturb while Focus is on (unless the caller is allowed through), and with
  filteredByBlockList for a caller the user blocked. The provider did nothing wrong; its logs show
  a 200 and a reported call.
phones:
  - name: alice
  - name: bob
steps:
  - register: alice
  - register: bob
  - do-not-disturb: alice
    allow: [erin]
  - block: bob
    caller: mallory
  - call: alice
    from: dave
  - expect phone: alice
    outcome: call-refused
    reason: filteredByDoNotDisturb
    rules: [reported-to-callkit, do-not-disturb]
  - call: alice
    from: erin
  - expect phone: alice
    outcome: rang
  - call: bob
    from: mallory
  - expect phone: bob
    outcome: call-refused
    reason: filteredByBlockList
    rules: [blocked-caller]
  - do-not-disturb: alice
    on: false
  - call: alice
    from: dave
  - expect phone: alice
    outcome: rang
obligation: sends a correct push even where Focus or a block list stops the ring
basis: apple
