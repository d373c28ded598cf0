scenario: Typos everywhere
apns:
  enviroment: sandbox
  profile: voip-lynt
phones:
  - name: alice
    apps:
      - bundle: com.ringside.testapp
        behavour: reports-at-once
steps:
  - cal: alice
  - advance: 2 hours
  - fault: ServiceUnavialable
    count: three
  - expect phone: alice
    outcome: rings
