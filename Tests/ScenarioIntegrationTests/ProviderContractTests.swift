import Foundation
import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// The provider contract (docs/architecture.md) reaches every command a scenario starts, with the VoIP topic
/// spelled out: a provider need not know that a VoIP push adds `.voip` to the bundle ID.
@Suite struct ProviderContractTests {
    @Test("APNS_VOIP_TOPIC is <bundle>.voip in an exec step's and an exec provider's environment")
    func voipTopicInEnvironment() {
        let provider =
            #"curl -s -o /dev/null --http2 --max-time 2 --cacert {ca} -H "authorization: bearer {jwt}" -H "apns-topic: $APNS_VOIP_TOPIC" -H "apns-push-type: voip" -H "apns-expiration: 0" --data-binary '{payload}' {url}/3/device/{token}"#
        let result = AdversaryRegressionTests.run(
            """
            phones:
              - name: alice
            provider:
              exec: \(provider)
            steps:
              - exec: test "$APNS_VOIP_TOPIC" = com.ringside.testapp.voip && test "{topic}" = "$APNS_VOIP_TOPIC"
              - register: alice
              - call: alice
                from: bob
              - expect apns: to the VoIP topic
                count: 1
                status: 200
                header: "apns-topic: com.ringside.testapp.voip"
              - expect phone: alice
                outcome: rang
            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.passed, "\(result.error ?? "") \(result.expectations.map(\.happened))")
        #expect(ProviderContract.voipTopic == "com.ringside.testapp.voip")
    }
}
