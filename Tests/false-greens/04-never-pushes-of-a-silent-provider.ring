scenario: never-pushes is not earned by a provider that never pushed
teaches: |
  Negative control: absence is vacuous when the provider does nothing at all.
phones:
  - name: alice
provider:
  exec: "true"
steps:
  - register: alice
  - call: alice
  - expect provider: no push after a refusal
    never-pushes: alice
