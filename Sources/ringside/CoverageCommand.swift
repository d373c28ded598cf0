import APNs
import Foundation
import ScenarioLanguage
import World

/// `ringside coverage DIR|FILE…`: which of APNs' reasons and which rules of APNs and the phone the
/// scenarios demonstrate, each at the line that shows it, and which none does. Read from the checked
/// plans (nothing runs): a reason counts where `expect apns … reason:` checks it or a `fault:` makes
/// the mock answer it; a rule where `expect phone … rules:` checks it. docs/coverage.md is its output.
enum CoverageCommand {
    static let help = """
        Usage: ringside coverage DIR|FILE…

        Prints, as Markdown, every APNs reason and every rule of APNs and the phone (`ringside explain
        rules`) with the scenario lines that demonstrate it: `expect apns … reason:` (checked), a
        `fault:` that answers with it (armed), `expect phone … rules:` (checked). Nothing is run.

        Exit codes: 0 everything is covered, 1 something is not (listed at the end), 2 a scenario does
        not check, 64 bad arguments.
        """

    /// Where something is shown: a file's line, and how.
    struct Place: Comparable {
        var path: String
        var line: Int
        var how: String
        static func < (a: Place, b: Place) -> Bool { (a.path, a.line) < (b.path, b.line) }
        var text: String { "\(path):\(line)" }
    }

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: "coverage")
        if arguments.flag("--help") || arguments.flag("-h") || raw.isEmpty {
            Output.out(help)
            return raw.isEmpty ? ExitCode.usage : ExitCode.success
        }
        return runCommand {
            let paths = try arguments.remaining()
            var reasons: [Reason: [Place]] = [:]
            var rules: [PhoneRule: [Place]] = [:]
            var invalid = false
            for path in try scenarioFiles(paths) {
                let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
                let file = SourceFile(path: path, text: text)
                let checked = Checker.plan(file)
                guard let plan = checked.plan else {
                    invalid = true
                    for diagnostic in checked.diagnostics { Output.error(diagnostic.render(in: file)) }
                    continue
                }
                for step in plan.steps {
                    let line = step.range.start.line
                    switch step.action {
                    case .expectAPNs(let expectation):
                        if let reason = expectation.reason {
                            reasons[reason, default: []].append(Place(path: path, line: line, how: "checked"))
                        }
                    case .fault(let fault):
                        switch fault.spec.kind {
                        case .answer(let reason):
                            reasons[reason, default: []].append(Place(path: path, line: line, how: "armed"))
                        case .goAway(_, let reason):
                            reasons[reason, default: []].append(Place(path: path, line: line, how: "armed, GOAWAY"))
                        default: break
                        }
                    case .expectPhone(let expectation):
                        for rule in expectation.rules {
                            rules[rule, default: []].append(Place(path: path, line: line, how: "checked"))
                        }
                    default: break
                    }
                }
            }
            if invalid { return ExitCode.scenarioInvalid }
            let (text, uncovered) = render(paths: paths, reasons: reasons, rules: rules)
            Output.out(text)
            return uncovered ? ExitCode.expectationFailed : ExitCode.success
        }
    }

    static func render(paths: [String], reasons: [Reason: [Place]], rules: [PhoneRule: [Place]]) -> (String, Bool) {
        func places(_ found: [Place]?) -> String {
            guard let found, !found.isEmpty else { return "**not covered**" }
            let sorted = found.sorted()
            let shown = sorted.prefix(3).map { "`\($0.text)` (\($0.how))" }.joined(separator: ", ")
            return shown + (sorted.count > 3 ? ", and \(sorted.count - 3) more" : "")
        }
        var lines = [
            "# Protocol coverage of the scenario library",
            "",
            "Made by `ringside coverage \(paths.joined(separator: " "))`; a test fails when this file differs from what",
            "it prints. A reason counts where a scenario checks it (`expect apns … reason:`) or arms a fault",
            "that answers with it; a rule where `expect phone … rules:` checks that a push's story shows it.",
            "",
            "## APNs reasons: \(reasons.count) of \(Reason.allCases.count)",
            "",
            "| reason | status | where |",
            "|---|---|---|",
        ]
        for reason in Reason.allCases {
            lines.append("| `\(reason.wire)` | \(reason.status) | \(places(reasons[reason])) |")
        }
        lines += [
            "", "## Rules of APNs and the phone: \(rules.count) of \(PhoneRule.allCases.count)", "",
            "| rule | what it says | where |", "|---|---|---|",
        ]
        for rule in PhoneRule.allCases {
            lines.append("| `\(rule.rawValue)` | \(rule.summary) | \(places(rules[rule])) |")
        }
        let missing =
            Reason.allCases.filter { reasons[$0] == nil }.map(\.wire)
            + PhoneRule.allCases.filter { rules[$0] == nil }.map(\.rawValue)
        lines += [
            "", "## Not covered", "", missing.isEmpty ? "Nothing." : missing.map { "`\($0)`" }.joined(separator: ", "),
        ]
        return (lines.joined(separator: "\n"), !missing.isEmpty)
    }
}
