import APNs
import Foundation
import Scenario
import ScenarioLanguage
import Synchronization
import TestSupport
import Testing

/// The in-memory runs stand for the loopback ones (ScenarioTests runs most scenarios in memory):
/// every bundled scenario that can run in memory, with its own provider and with each built-in
/// profile, gets the same verdict, expectation by expectation, on both transports. A difference
/// found here was a client's last bytes left unsent in memory (a TLS alert, a certificate flight)
/// and a server's writes read as one, which hid the streams refused under a lowered limit.
@Suite struct TransportParityTests {
    /// A result's verdict in a few characters: skipped, an error, or each expectation's pass/fail.
    static func verdict(_ result: ScenarioResult) -> String {
        if let skipped = result.skipped { return "skipped: \(skipped.description)" }
        if let error = result.error { return "error: \(error)" }
        if !result.diagnostics.isEmpty { return "diagnostics: \(result.diagnostics.map(\.detail))" }
        return result.expectations.map { $0.passed ? "1" : "0" }.joined()
    }

    @Test("Every bundled scenario that runs in memory gets the same verdicts there as on loopback")
    func sameVerdicts() throws {
        let providers: [ProviderUnderTest?] =
            [nil] + ProviderProfile.allCases.map { ProviderUnderTest(setup: .builtin($0)) }
        var cells: [(SourceFile, ProviderUnderTest?)] = []
        // Loads run in real time on loopback (each about a second, 15 providers): their words are
        // shown in memory (VerdictPairs.loadPairs) and on loopback (LoadStatusTests, ReportPictureTests).
        for relative in Paths.bundled where !relative.hasPrefix("load/") {
            let path = Paths.root + "/scenarios/" + relative
            let file = SourceFile(path: path, text: try String(contentsOfFile: path, encoding: .utf8))
            for provider in providers where transport(for: file, provider: provider) == .memory {
                cells.append((file, provider))
            }
        }
        #expect(cells.count > 500, "\(cells.count) runs")
        let runs = cells
        let differences = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: runs.count) { index in
            let (file, provider) = runs[index]
            let memory = ScenarioRunner.run(file, certs: Paths.certs, providerUnderTest: provider, transport: .memory)
            let loopback = ScenarioRunner.run(
                file, certs: Paths.certs, providerUnderTest: provider, transport: .loopback)
            guard Self.verdict(memory) != Self.verdict(loopback) else { return }
            let name = "\(provider.map { "\($0.setup)" } ?? "its own provider") on \(file.path)"
            differences.withLock {
                $0.append("\(name): in memory \(Self.verdict(memory)), on loopback \(Self.verdict(loopback))")
            }
        }
        #expect(differences.withLock { $0 }.isEmpty, "\(differences.withLock { $0 }.joined(separator: "\n"))")
    }
}
