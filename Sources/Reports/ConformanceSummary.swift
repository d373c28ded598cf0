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
            lines.append(
                "  \(mark) \(verdict)  \(OutsideText.visible(rule(result)))  (\(OutsideText.visible(result.path)))")
        }
        return lines.joined(separator: "\n")
    }

    /// The first sentence of what the scenario teaches, else its name.
    static func rule(_ result: ScenarioResult) -> String {
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
