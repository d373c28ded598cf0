scenario: Bad indentation
steps:
  - call: alice
 - advance: 1h
