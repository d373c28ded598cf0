import Foundation
import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// The harness can fail: a provider that sends nothing fails every bundled scenario that expects
/// something, demonstrations included (and would pass one that expects nothing).
@Suite struct HarnessCanFailTests {
    static let bundled = Paths.bundled

    /// Whether the plan expects nothing at all: a silent provider fails every expectation, those of
    /// absence too (they count only of a provider that pushed: ScenarioRunner.requireSignsOfLife).
    static func expectsNothing(_ plan: ScenarioPlan) -> Bool {
        plan.steps.allSatisfy { step in
            switch step.action {
            case .expectAPNs, .expectPhone, .expectProvider, .expectLoad: return false
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
        var underTest = ProviderUnderTest(setup: silent)
        underTest.alsoDemonstrations = true
        // Authenticating as the scenario was written for: a requirement for the other kind is skipped.
        underTest.authentication = plan.apns.declaredAuthentication ?? .token
        let result = ScenarioRunner.run(file, certs: Paths.certs, providerUnderTest: underTest)
        #expect(result.error == nil, "\(result.error ?? "")")
        #expect(result.skipped == nil, "\(name): \(result.skipped?.description ?? "")")
        #expect(result.passed == Self.expectsNothing(plan), "\(name): \(result.expectations.map(\.happened))")
    }
}
