import Foundation
import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// Scenarios that went red on a correct provider (Tests/false-reds/, issue 45's second adversary):
/// a service that pushes from a job queue within its `settles-within`. Each must pass; told that the
/// service settles at once, the runner judges too early and the same scenario fails.
@Suite struct FalseRedTests {
    @Test(
        "A correct queued service passes",
        arguments: [
            "01-two-calls-from-a-queue.ring", "02-online-before-the-queued-push.ring",
            "03-advance-before-the-queued-push.ring",
        ])
    func queuedServicePasses(name: String) throws {
        let path = Paths.root + "/Tests/false-reds/" + name
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let result = ScenarioRunner.run(SourceFile(path: path, text: text), certs: Paths.certs)
        #expect(result.passed, "\(name): \(result.expectations.map(\.happened)) \(result.error ?? "")")
    }

    @Test("Negative control: told the service settles at once, the runner changes the phone before its push")
    func declaredTooShortFails() throws {
        let path = Paths.root + "/Tests/false-reds/02-online-before-the-queued-push.ring"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
            of: "--queue-delay=1\n", with: "--queue-delay=1\n  settles-within: 0s\n")
        #expect(text.contains("settles-within: 0s"))
        let result = ScenarioRunner.run(SourceFile(path: path, text: text), certs: Paths.certs)
        #expect(!result.passed, "\(result.expectations.map(\.happened))")
    }
}

/// Scenarios that went green on a provider that should fail (issue 26): each in
/// Tests/false-greens/ pins the broken provider and expects what a correct one would do, so it must
/// fail, and its failure must say why. Each passed on the code before the fix (the closing note
/// shows the run with the old binary).
@Suite struct FalseGreenTests {
    static func run(_ name: String) throws -> ScenarioResult {
        let path = Paths.root + "/Tests/false-greens/" + name
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return ScenarioRunner.run(SourceFile(path: path, text: text), certs: Paths.certs)
    }

    @Test(
        "Each broken provider fails, saying what it saw",
        arguments: [
            ("01-connections-at-most-before-the-calls.ring", "2 opened"),
            ("02-refused-streams-before-the-burst.ring", "refused: over MAX_CONCURRENT_STREAMS"),
            ("03-short-within-on-a-count.ring", "2 of 2 requests matched"),
            ("04-never-pushes-of-a-silent-provider.ring", "nothing to judge: the provider sent no push"),
            ("05-count-zero-of-a-silent-provider.ring", "nothing to judge: the provider sent no push"),
            ("06-stateless-provider-and-logout.ring", "1 of 2 requests matched"),
            ("07-stateless-provider-and-duplicate-registration.ring", "2 of 2 requests matched"),
            ("08-stale-call-id-rings.ring", "which no call of this scenario was given"),
            ("09-same-apns-id-twice.ring", "duplicate"),
            ("10-ghost-hidden-by-a-later-push.ring", "a ghost"),
            ("11-second-push-40ms-later.ring", "duplicate"),
            ("12-same-jwt-respelt.ring", "the provider kept its JWT"),
            ("13-phantom-ring-then-the-right-push.ring", "a phantom ring"),
            ("14-duplicate-excused-by-another-tokens-410.ring", "duplicate"),
            ("15-port-probe-is-no-sign-of-life.ring", "nothing to judge"),
            ("16-get-is-no-sign-of-life.ring", "nothing to judge"),
            ("17-callUUID-given-twice.ring", "which no call of this scenario was given"),
            ("18-get-to-a-device-path-is-no-sign-of-life.ring", "nothing to judge"),
            ("19-cleartext-to-the-tls-port-is-no-sign-of-life.ring", "nothing to judge"),
            ("20-insecure-curl-talks-to-the-impostor.ring", "1 of 1 requests matched"),
            ("21-resend-after-a-late-answer-came.ring", "duplicate"),
            ("22-never-pushes-reads-the-tokens-of-the-end.ring", "1 push after a refusal"),
            ("23-phantom-ring-before-a-named-call.ring", "a phantom ring"),
            ("24-same-jwt-signed-again.ring", "the provider kept its JWT"),
            ("25-stamped-retries-without-back-off.ring", "2 retries, after 0.0"),
            ("27-http11-is-no-sign-of-life.ring", "nothing to judge"),
            ("28-missing-token-is-no-sign-of-life.ring", "nothing to judge"),
            ("29-excused-resend-hides-a-duplicate.ring", "duplicate"),
            ("30-daemon-whose-main-thread-ended.ring", "2 of 2 requests matched"),
            ("31-late-push-without-a-call-id.ring", "it held at its line, but not once the provider had settled"),
        ])
    func brokenProviderFails(name: String, saying: String) throws {
        let result = try Self.run(name)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.error == nil)
        #expect(!result.passed, "\(name) went green")
        let happened = result.expectations.filter { !$0.passed }.map(\.happened).joined(separator: " | ")
        #expect(happened.contains(saying), "\(name): \(happened)")
    }

    /// The positive twins of issue 45's false greens: the same scenario with the provider's mistake
    /// taken out passes, so each failure above is the mistake's, not the scenario's.
    @Test(
        "Each false green's correct twin passes",
        arguments: [
            // A resend sent while the delayed answer is still on its way is an ambiguous failure's.
            ("21-resend-after-a-late-answer-came.ring", "sleep 1.5", "sleep 0.5"),
            ("22-never-pushes-reads-the-tokens-of-the-end.ring", " --keeps-pushing-after-410", ""),
            (
                "23-phantom-ring-before-a-named-call.ring",
                // The phantom's curl, taken out: only the right push is sent.
                #"curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{{"aps":{{}},"callUUID":"0f1e2d3c-4b5a-4968-8776-655443322110","handle":"x"}}' {url}/3/device/{token}; "#,
                ""
            ),
            // A JWT signed a second later has a later iat.
            (
                "24-same-jwt-signed-again.ring",
                #"I={jwt}; J="${I%.*}.$(printf %s "${I%.*}" | openssl dgst -sha256 -sign "$APNS_KEY_FILE" | base64 -w0 | tr '+/' '-_' | tr -d '=')""#,
                #"sleep 1.1; J=$("$RINGSIDE" token)"#
            ),
            // Retries 300 ms apart, each stamped: a retry is the same token and call (was "0 retries").
            ("25-stamped-retries-without-back-off.ring", "sleep 0;", "sleep 0.3;"),
            // Only the excusable resend: the call rang once.
            (
                "29-excused-resend-hides-a-duplicate.ring",
                #"curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} ; sleep 0.1 ; "#,
                ""
            ),
            ("31-late-push-without-a-call-id.ring", " --late-push-without-call-id=3", ""),
            // No daemon left behind.
            (
                "30-daemon-whose-main-thread-ended.ring",
                #"; python3 {dir}/../providers/ghost.py 1 /usr/bin/curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-priority: 10" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token} >/dev/null 2>&1 &"#,
                ""
            ),
        ])
    func correctTwinPasses(name: String, mistake: String, correct: String) throws {
        let path = Paths.root + "/Tests/false-greens/" + name
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(mistake), "\(name) no longer makes the mistake")
        let twin = text.replacingOccurrences(of: mistake, with: correct)
        let result = ScenarioRunner.run(SourceFile(path: path, text: twin), certs: Paths.certs)
        #expect(result.passed, "\(name): \(result.expectations.map(\.happened)) \(result.error ?? "")")
    }

    /// The positive side of the call-id rule: a provider that spells the call's UUID in capitals
    /// rings that call (CallKit reads a UUID regardless of case).
    @Test("A call id in capitals is the same call")
    func callIdInCapitals() {
        let curl = VerdictPairs.curl(
            payload: #""{\"aps\":{},\"callUUID\":\"$(echo {callId} | tr a-f A-F)\",\"handle\":\"x\"}""#)
        let result = AdversaryRegressionTests.run(
            """
            phones:
              - name: alice
            provider:
              exec: \(curl)
            steps:
              - register: alice
              - call: alice
                as: c1
              - expect phone: alice
                call: c1
                outcome: rang
            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.passed, "\(result.expectations.map(\.happened))")
    }
}
