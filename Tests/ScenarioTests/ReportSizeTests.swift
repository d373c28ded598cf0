import Reports
import Scenario
import TestSupport
import Testing

/// The HTML report as a whole is bounded (issue 46, point 8): 2,040 passing scenarios made a
/// 30.6 MB page, each scenario capped but the page not. Failures stay whole; passes past
/// `HTMLReport.passedDetailBudget` are summarised, and the page says so.
@Suite struct ReportSizeTests {
    static let rings = """
        phones:
          - name: alice
        steps:
          - register: alice
          - call: alice
            from: bob
          - expect phone: alice
            outcome: rang
          - expect apns: accepted
            count: 1

        """

    @Test("2,040 passing scenarios and 3 failures make a page under 5 MB: failures whole, the rest summarised")
    func pageIsBounded() {
        let pass = runScenario(Self.rings, transport: .memory)
        let fail = runScenario("provider:\n  builtin: forgets-voip-suffix\n" + Self.rings, transport: .memory)
        #expect(pass.passed && !fail.passed)
        var results: [ScenarioResult] = []
        for index in 0..<2_043 {
            var result = index % 700 == 350 ? fail : pass
            result.path = "scenarios/\(index).ring"
            results.append(result)
        }
        let page = HTMLReport.render(results)
        #expect(page.utf8.count < 5 << 20, "\(page.utf8.count) bytes")
        let sections = page.components(separatedBy: #"<section class="scenario "#).dropFirst()
        #expect(sections.count == 2_043)
        let failed = sections.filter { $0.hasPrefix("failed") }
        #expect(failed.count == 3)
        for section in failed { #expect(section.contains(#"<div class="diagram">"#)) }
        let summarised = sections.filter { $0.contains("diagram, calls and source left out") }.count
        #expect(summarised > 1_500)
        #expect(page.contains("\(summarised) of 2040 passing or skipped scenarios are summarised below"))
        // A small run keeps every pass whole.
        let small = HTMLReport.render(Array(results.prefix(20)))
        #expect(!small.contains("left out"))
        #expect(small.components(separatedBy: #"<div class="diagram">"#).count == 21)
    }
}
