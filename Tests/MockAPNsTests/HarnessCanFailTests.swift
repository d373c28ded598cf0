import Foundation
import Scenario
import ScenarioLanguage
import Testing

/// The harness can fail: a provider that sends nothing fails every bundled scenario that expects
/// something (and passes those that expect nothing, so the test itself can fail both ways).
@Suite struct HarnessCanFailTests {
    static let bundled = Paths.bundled

    /// Whether every expectation of the plan holds when nothing at all reaches APNs.
    static func expectsNothing(_ plan: ScenarioPlan) -> Bool {
        plan.steps.allSatisfy { step in
            switch step.action {
            case .expectAPNs(let expectation):
                let judgesRequests =
                    expectation.count != nil || expectation.status != nil || expectation.reason != nil
                    || expectation.phone != nil || expectation.header != nil || expectation.refusedStreams == nil
                return (!judgesRequests || expectation.count == 0) && expectation.refused == nil
                    && (expectation.refusedStreams ?? 0) == 0
            case .expectPhone: return false
            case .expectProvider(let expectation):
                // A provider that sends nothing never says that it stopped.
                return expectation.retried == nil && expectation.reconnected != true
                    && expectation.refreshedJWT != true && (expectation.stopped ?? "false") == "false"
            default: return true
            }
        }
    }

    @Test("A provider that sends nothing fails every bundled scenario that expects something", arguments: bundled)
    func sendsNothing(name: String) throws {
        let path = Paths.scenario(name)
        let file = SourceFile(path: path, text: try String(contentsOfFile: path, encoding: .utf8))
        let plan = try #require(Checker.plan(file).plan)
        let silent = ProviderSetup.exec(
            Template(text: "true", range: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1)))
        let result = ScenarioRunner.run(file, certs: Paths.certs, provider: silent)
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.passed == Self.expectsNothing(plan), "\(name): \(result.expectations.map(\.happened))")
    }
}
