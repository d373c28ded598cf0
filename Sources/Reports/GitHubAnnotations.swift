import Foundation
import Scenario
import ScenarioLanguage

/// GitHub Actions workflow commands for a scenario's failures (`ringside run --format github`):
/// `::error file=…,line=…,col=…,title=…::message`, one per failed expectation or check error, so
/// that a pull request shows each at its line. A run that could not proceed is one error on the file.
/// Syntax and escaping: GitHub's "Workflow commands for GitHub Actions", "Setting an error message".
public enum GitHubAnnotations {
    public static func render(_ result: ScenarioResult) -> [String] {
        if let skipped = result.skipped {
            return [
                command("notice", file: result.path, line: nil, column: nil, title: result.name, "skipped: \(skipped)")
            ]
        }
        if let error = result.error {
            return [command(file: result.path, line: nil, column: nil, title: result.name, "could not run: \(error)")]
        }
        if !result.diagnostics.isEmpty { return render(result.diagnostics, path: result.path) }
        return result.expectations.filter { !$0.passed }.map { expectation in
            var lines = ["expected \(expectation.expected); happened: \(expectation.happened)"]
            lines += expectation.chain.map { "- \($0)" }
            if !expectation.printed.isEmpty {
                lines += ["the provider printed:"] + expectation.printed.map { "| \($0)" }
            }
            return command(
                file: result.path, line: expectation.range.start.line, column: expectation.range.start.column,
                title: "\(result.name): expectation failed", lines.joined(separator: "\n"))
        }
    }

    /// A file's check errors (`ringside check --format github`).
    public static func render(_ diagnostics: [Diagnostic], path: String) -> [String] {
        diagnostics.map { diagnostic in
            var message = diagnostic.detail
            if let suggestion = diagnostic.suggestion { message += "; did you mean <\(suggestion)>?" }
            return command(
                file: path, line: diagnostic.range.start.line, column: diagnostic.range.start.column,
                title: diagnostic.title, message)
        }
    }

    static func command(
        _ kind: String = "error", file: String, line: Int?, column: Int?, title: String, _ message: String
    ) -> String {
        var properties = ["file=\(escapeProperty(file))"]
        if let line { properties.append("line=\(line)") }
        if let column { properties.append("col=\(column)") }
        properties.append("title=\(escapeProperty(title))")
        return "::\(kind) \(properties.joined(separator: ","))::\(escapeData(message))"
    }

    /// A message: `%`, CR and LF escaped (a newline in the message is `%0A`).
    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A property value: also `:` and `,`, which would end it.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
