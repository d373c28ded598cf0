scenario: ExpiredProviderToken makes the provider sign a new JWT once (incident 5)
teaches: |
  APNs refuses a JWT older than an hour with 403 ExpiredProviderToken. A correct provider signs a
  new one (on a new connection, since APNs wedges the old one) and retries once.
apns:
  auth: token
phones:
  - name: alice
steps:
  - register: alice
  - fault: ExpiredProviderToken
  - call: alice
    from: bob
  - expect phone: alice
    outcome: rang
  - expect provider: jwt
    refreshed-jwt: true
obligation: signs a new JWT after ExpiredProviderToken and sends the push again, once
basis: apple
