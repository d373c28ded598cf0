import Foundation
import Scenario
import ScenarioLanguage
import Testing

/// The harness can fail: a provider that sends nothing fails every bundled scenario that expects
/// something (and passes those that expect nothing, so the test itself can fail both ways).
@Suite struct HarnessCanFailTests {
    static let bundled: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Paths.root + "/scenarios")) ?? []
        return names.filter { $0.hasSuffix(".ring") }.sorted()
    }()

    /// Whether every expectation of the plan holds when nothing at all reaches APNs.
    static func expectsNothing(_ plan: ScenarioPlan) -> Bool {
        plan.steps.allSatisfy { step in
            switch step.action {
            case .expectAPNs(let expectation): return expectation.count == 0 && expectation.refused == nil
            case .expectPhone: return false
            case .expectProvider(let expectation):
                return expectation.retried == nil && expectation.reconnected != true
                    && expectation.refreshedJWT != true
            default: return true
            }
        }
    }

    @Test("A provider that sends nothing fails every bundled scenario that expects something", arguments: bundled)
    func sendsNothing(name: String) throws {
        let path = Paths.root + "/scenarios/" + name
        let file = SourceFile(path: path, text: try String(contentsOfFile: path, encoding: .utf8))
        let plan = try #require(Checker.plan(file).plan)
        let silent = ProviderSetup.exec(
            Template(text: "true", range: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1)))
        let result = ScenarioRunner.run(file, certs: Paths.certs, provider: silent)
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.passed == Self.expectsNothing(plan), "\(name): \(result.expectations.map(\.happened))")
    }
}
