import APNs
import Foundation
import Scenario
import ScenarioLanguage

/// What a provider does and does not do, a requirement a line: its verdict, the rule it checks in
/// plain words (the first sentence of the scenario's own `teaches:`, so there is no second table to
/// drift) and its file. Printed at the end of `run --provider-file` (Autobahn's one report per
/// implementation, case by case).
public enum ConformanceSummary {
    public static func render(_ results: [ScenarioResult], provider: String) -> String {
        let requirements = results.filter { $0.skipped?.isDemonstration != true }
        var lines = [
            "conformance of \(provider): \(requirements.count) requirement\(requirements.count == 1 ? "" : "s")"
        ]
        for result in requirements {
            let mark = result.skipped != nil ? "–" : result.passed ? "✔" : "✘"
            let verdict = result.skipped != nil ? "n/a   " : result.passed ? "passed" : "failed"
            let basis = result.basis.map { "[\($0.label)] " } ?? ""
            lines.append(
                "  \(mark) \(verdict)  \(basis)\(OutsideText.visible(rule(result)))  (\(OutsideText.visible(result.path)))"
            )
            if result.skipped == nil, !result.passed {
                lines.append("      first cause: \(OutsideText.visible(firstCause(result)))")
            }
        }
        // Grouped once there is more than one failure to group (one says its cause on its own line).
        let causes = firstCauses(requirements)
        if causes.map(\.count).reduce(0, +) > 1 {
            lines.append("failures by first cause:")
            for (cause, count) in causes {
                lines.append("  \(count) failed: \(OutsideText.visible(cause))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// What went wrong first in each failed requirement, and in how many: "27 failed: a VoIP push
    /// at priority 5 or 1 …" says one mistake where 27 lines would each say it again. Most first.
    public static func firstCauses(_ results: [ScenarioResult]) -> [(cause: String, count: Int)] {
        var counts: [String: Int] = [:]
        for result in results where !result.passed && result.skipped == nil {
            counts[firstCause(result), default: 0] += 1
        }
        return counts.map { ($0.key, $0.value) }.sorted { ($0.count, $1.cause) > ($1.count, $0.cause) }
    }

    /// A failed scenario's first cause: its first failed expectation's, else what it expected.
    static func firstCause(_ result: ScenarioResult) -> String {
        if let error = result.error {
            // Its first line, up to what changes from run to run (the port of a ready URL).
            let line = error.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            return "could not run: " + (line.components(separatedBy: " before http").first ?? line)
        }
        if !result.diagnostics.isEmpty { return "does not check" }
        let failed = result.expectations.filter { !$0.passed }
        if let cause = failed.compactMap(\.cause).first { return cause }
        return failed.first.map { "expected \($0.expected)" } ?? "failed"
    }

    /// The requirement's obligation of the provider, else the first sentence of what it teaches,
    /// else its name.
    static func rule(_ result: ScenarioResult) -> String {
        if let obligation = result.obligation { return obligation }
        guard let teaches = result.teaches?.split(whereSeparator: \.isNewline).joined(separator: " "),
            !teaches.isEmpty
        else { return result.name }
        // A sentence ends at a full stop before a space (`.voip` and `iOS 26.4` go on).
        var sentence = ""
        var previous: Character = " "
        for character in teaches {
            if previous == ".", character == " ", sentence.count > 20 { break }
            sentence.append(character)
            previous = character
        }
        return sentence.trimmingCharacters(in: .whitespaces)
    }
}
