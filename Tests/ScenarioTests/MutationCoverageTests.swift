import APNs
import Foundation
import Scenario
import ScenarioLanguage
import Synchronization
import TestSupport
import Testing

/// Mutation coverage of the library (issue 26): every requirement (a scenario that pins no
/// provider) against every built-in profile. The reference passes them all, every naive profile
/// fails at least one, and every requirement is failed by at least one naive profile — a
/// requirement nothing can fail proves nothing (scenario 19 was one until it counted connections).
/// `bash scripts/conformance-matrix.sh` prints the same matrix, with an exec and an http provider.
/// In memory: a requirement with an `exec` step would fail here (`ScenarioTransport.NeedsASocket`).
@Suite struct MutationCoverageTests {
    static func requirements() throws -> [SourceFile] {
        try Paths.bundled.compactMap { name in
            let path = Paths.root + "/scenarios/" + name
            let file = SourceFile(path: path, text: try String(contentsOfFile: path, encoding: .utf8))
            guard let plan = Checker.plan(file).plan, !plan.pinsProvider else { return nil }
            return file
        }
    }

    @Test("The reference passes every requirement; every naive profile fails one; every requirement is failed by one")
    func matrix() throws {
        let files = try Self.requirements()
        #expect(files.count >= 30)
        let cells = ProviderProfile.allCases.flatMap { profile in files.map { (profile, $0) } }
        let passed = Mutex<[String: Bool]>([:])
        // Several at once (each run has its own mock and manual clock).
        let queue = DispatchQueue(label: "matrix", attributes: .concurrent)
        let slots = DispatchSemaphore(value: 16)
        let group = DispatchGroup()
        for (profile, file) in cells {
            slots.wait()
            queue.async(group: group) {
                defer { slots.signal() }
                let result = ScenarioRunner.run(
                    file, certs: Paths.certs, providerUnderTest: ProviderUnderTest(setup: .builtin(profile)),
                    transport: .memory)
                let verdict =
                    result.skipped == nil && result.error == nil && result.diagnostics.isEmpty && result.passed
                passed.withLock { $0["\(profile.rawValue) \(file.path)"] = verdict }
            }
        }
        group.wait()
        let verdicts = passed.withLock { $0 }
        func holds(_ profile: ProviderProfile, _ file: SourceFile) -> Bool {
            verdicts["\(profile.rawValue) \(file.path)"] ?? false
        }
        for file in files { #expect(holds(.reference, file), "the reference fails \(file.path)") }
        let naive = ProviderProfile.allCases.filter { $0 != .reference }
        for profile in naive {
            #expect(files.contains { !holds(profile, $0) }, "\(profile.rawValue) fails no requirement")
        }
        for file in files {
            #expect(naive.contains { !holds($0, file) }, "no naive profile fails \(file.path)")
        }
    }
}
