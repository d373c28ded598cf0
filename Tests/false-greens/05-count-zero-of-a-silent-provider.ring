scenario: count 0 after a logout is not earned by a provider that never pushes
teaches: |
  Negative control: a provider that never pushes to anyone passes no expectation of absence.
phones:
  - name: alice
provider:
  exec: "true"
steps:
  - register: alice
  - unregister: alice
  - call: alice
  - expect apns: nothing sent
    count: 0
