import APNs
import Foundation
import Scenario
import ScenarioLanguage

/// GitHub Actions workflow commands for a scenario's failures (`ringside run --format github`):
/// `::error file=…,line=…,col=…,title=…::message`, one per failed expectation or check error, so
/// that a pull request shows each at its line. A run that could not proceed is one error on the file.
/// Syntax and escaping: GitHub's "Workflow commands for GitHub Actions", "Setting an error message".
public enum GitHubAnnotations {
    public static func render(_ result: ScenarioResult) -> [String] {
        let visible = OutsideText.visible
        if let skipped = result.skipped {
            return [
                command(
                    "notice", file: result.path, line: nil, column: nil, title: result.name,
                    "skipped: \(visible(skipped.description))")
            ]
        }
        if let error = result.error {
            return [
                command(
                    file: result.path, line: nil, column: nil, title: result.name, "could not run: \(visible(error))")
            ]
        }
        if !result.diagnostics.isEmpty { return render(result.diagnostics, path: result.path) }
        return result.expectations.filter { !$0.passed }.map { expectation in
            var lines = ["expected \(visible(expectation.expected)); happened: \(visible(expectation.happened))"]
            lines += expectation.chain.map { "- \(visible($0))" }
            if !expectation.printed.isEmpty {
                lines += ["the provider printed:"] + expectation.printed.map { "| \(visible($0))" }
            }
            return command(
                file: result.path, line: expectation.range.start.line, column: expectation.range.start.column,
                title: "\(result.name): expectation failed", lines.joined(separator: "\n"))
        }
    }

    /// A file's check errors (`ringside check --format github`).
    public static func render(_ diagnostics: [Diagnostic], path: String) -> [String] {
        diagnostics.map { diagnostic in
            var message = OutsideText.visible(diagnostic.detail)
            if let suggestion = diagnostic.suggestion {
                message += "; did you mean <\(OutsideText.visible(suggestion))>?"
            }
            return command(
                file: path, line: diagnostic.range.start.line, column: diagnostic.range.start.column,
                title: diagnostic.title, message)
        }
    }

    /// One workflow command. `message` is lines whose outside text is already `visible`; the file
    /// and title are made so here (OutsideText.workflowProperty).
    static func command(
        _ kind: String = "error", file: String, line: Int?, column: Int?, title: String, _ message: String
    ) -> String {
        var properties = ["file=\(OutsideText.workflowProperty(file))"]
        if let line { properties.append("line=\(line)") }
        if let column { properties.append("col=\(column)") }
        properties.append("title=\(OutsideText.workflowProperty(title))")
        return "::\(kind) \(properties.joined(separator: ","))::\(OutsideText.workflowData(message))"
    }
}
