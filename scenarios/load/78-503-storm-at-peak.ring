scenario: A 503 storm at the peak, and the calls ring once it passes
teaches: |
  APNs answers 503 ServiceUnavailable to every push for a second in the middle of the peak. A
  provider that backs off and tries again rings the calls once the storm passes (a few placed at
  its height may still be lost). One that retries at once, again and again, spends its tries inside
  the storm and loses every call placed during it.
steps:
  - fault: ServiceUnavailable
    at: 1s
    lasting: 1s
  - load: peak
    phones: 300
    calls: 600
    rate: 200/s
  - expect load: the calls ring through the storm
    rang-at-least: 85%
obligation: backs off from a 503 storm at the peak, and the calls ring once it passes
basis: apple
