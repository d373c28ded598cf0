scenario: refused-streams written before a burst still counts the streams refused in it
teaches: |
  Negative control: a provider that bursts before SETTINGS loses streams to REFUSED_STREAM;
  refused-streams 0 written first is judged at the scenario's end and fails.
phones:
  - name: alice
  - name: bob
  - name: carol
  - name: dan
provider:
  builtin: drops-refused-streams
steps:
  - register: alice
    as: team
  - register: bob
    as: team
  - register: carol
    as: team
  - register: dan
    as: team
  - expect apns: nothing refused
    refused-streams: 0
  - call: team
