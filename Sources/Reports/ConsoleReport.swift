import APNs
import Scenario
import ScenarioLanguage

/// The console's words for a failed scenario: each failed expectation at its line, what was expected,
/// what happened, and the phone's chain of events.
public enum ConsoleReport {
    /// The failure of a scenario in plain text (for JUnit), or nil when it passed.
    public static func failure(_ result: ScenarioResult, in file: SourceFile) -> String? {
        if result.passed { return nil }
        if let error = result.error { return "could not run: \(OutsideText.visibleLines(error))" }
        if !result.diagnostics.isEmpty { return result.diagnostics.map { $0.render(in: file) }.joined(separator: "\n") }
        return result.expectations.filter { !$0.passed }.map { expectation in
            Diagnostic(
                "Expectation failed", at: expectation.range,
                detail: "expected \(expectation.expected); happened: \(expectation.happened)"
            )
            .render(in: file) + expectation.chain.map { "\n    - \(OutsideText.visible($0))" }.joined()
                + (expectation.printed.isEmpty
                    ? ""
                    : "\n    the provider printed:"
                        + expectation.printed.map { "\n      | \(OutsideText.visibleLines($0, indent: "      | "))" }
                        .joined())
        }.joined(separator: "\n")
    }
}
