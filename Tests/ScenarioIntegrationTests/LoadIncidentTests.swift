import Foundation
import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// The four incidents of issue 48, bundled: the reference provider passes each, and the naive
/// profile it teaches against fails it on the aggregate it names.
@Suite struct LoadIncidentTests {
    static let incidents = [
        ("75-410-wave-at-peak.ring", "keeps-pushing-after-410", "request"),
        ("76-goaway-mid-burst.ring", "ignores-goaway", "rang"),
        ("77-hot-user-throttled.ring", "no-backoff-on-503", "retr"),
        ("78-503-storm-at-peak.ring", "no-backoff-on-503", "rang"),
    ]

    static func runAs(_ name: String, provider: String) throws -> ScenarioResult {
        let path = Paths.scenario(name)
        let text = "provider:\n  builtin: \(provider)\n" + (try String(contentsOfFile: path, encoding: .utf8))
        return ScenarioRunner.run(SourceFile(path: path, text: text), certs: Paths.certs)
    }

    @Test(
        "Each load incident passes with the reference provider and fails with its naive profile", arguments: incidents)
    func incident(_ name: String, naive: String, failingWord: String) throws {
        let reference = try Self.runAs(name, provider: "reference")
        #expect(reference.error == nil && reference.diagnostics.isEmpty, "\(reference.error ?? "")")
        #expect(reference.passed, "\(name): \(reference.expectations.map(\.happened))")
        let broken = try Self.runAs(name, provider: naive)
        #expect(broken.error == nil, "\(broken.error ?? "")")
        #expect(!broken.passed, "\(name) passed with \(naive)")
        let failed = broken.expectations.filter { !$0.passed }.map(\.expected).joined(separator: "; ")
        #expect(failed.contains(failingWord), "\(name) with \(naive) failed on: \(failed)")
    }

    /// A load is open-loop (SIPp's): a service still retrying one call through a storm is asked
    /// about the calls due meanwhile, so the storm meets them. Asked one call at a time, a Python
    /// service retrying with back-off met a one-second storm with a handful of pushes.
    @Test("A load keeps placing calls while a service retries through a 503 storm")
    func openLoop() throws {
        let folder = NSTemporaryDirectory() + "ringside-open-loop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
        scenario: a storm in a steady load
        steps:
          - fault: ServiceUnavailable
            at: 500ms
            lasting: 1s
          - load: steady
            phones: 10
            calls: 60
            rate: 30/s
          - expect load: rings once the storm passes
            rang-at-least: 50%

        """.write(toFile: folder + "/storm.ring", atomically: true, encoding: .utf8)
        let result = try run(
            Paths.ringside,
            [
                "run", "--certs", Paths.certs, "--provider-file", Paths.root + "/Tests/providers/http-provider.ring",
                "--transcript", folder + "/t", folder + "/storm.ring",
            ])
        #expect(result.status == 0, "\(result.stdout.suffix(600))")
        let transcript = try String(contentsOfFile: folder + "/t/storm.jsonl", encoding: .utf8)
        let storm = transcript.split(separator: "\n").filter {
            $0.contains("\"event\":\"push\"") && $0.contains("\"status\":503")
        }
        // 30 calls a second for one second: each first push meets the storm.
        #expect(storm.count >= 20, "\(storm.count) pushes met the storm")
    }
}
