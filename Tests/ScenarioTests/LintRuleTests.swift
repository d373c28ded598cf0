import APNs
import Foundation
import Reports
import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// A `voip-lint` refusal answers with an Apple reason, but the scenario's failure text and its
/// sequence diagram name the lint rule and explain it with the rule's words, not the reason's.
@Suite struct LintRuleTests {
    @Test("A future expiration refused by voip-lint: the failure and the ladder name voip-lint/expiration-not-zero")
    func ladderNamesTheRule() {
        let result = runScenario(
            """
            apns:
              profile: voip-lint
            provider:
              builtin: non-zero-expiration
            phones:
              - name: alice
            steps:
              - register: alice
              - call: alice
                from: bob
              - expect apns: accepted
                count: 1
                status: 200
            """, transport: .memory)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.error == nil, "\(result.error ?? "")")
        let happened = result.expectations.map(\.happened).joined(separator: "\n")
        #expect(result.expectations.map(\.passed) == [false], "\(happened)")
        #expect(happened.contains("400 BadExpirationDate (voip-lint/expiration-not-zero)"), "\(happened)")
        let answers = Ladder.events(of: result).filter { $0.kind == .answer && $0.failed }
        #expect(!answers.isEmpty)
        for answer in answers {
            let details = answer.details.joined(separator: "\n")
            #expect(answer.label.contains("voip-lint/expiration-not-zero"), "\(answer.label)")
            #expect(details.contains("BadExpirationDate: voip-lint/expiration-not-zero: "), "\(details)")
            #expect(!details.contains(Reason.badExpirationDate.explanation), "\(details)")
            #expect(!details.contains(Reason.badExpirationDate.whatToDo), "\(details)")
        }
    }
}
