import APNs
import Foundation
import ScenarioLanguage
import World

/// `ringside coverage DIR|FILE…`: which of APNs' reasons and which rules of APNs and the phone the
/// scenarios demonstrate, each at the line that shows it, and which none does. Read from the checked
/// plans (nothing runs): a reason counts where `expect apns … reason:` or `goaway:` expects it; a rule
/// where `expect phone … rules:` checks it. docs/coverage.md is its output.
enum CoverageCommand {
    /// The options, declared once: the table below and every read name them (a misspelt one does not compile).
    enum Option {
        static let library = OptionSpec.flag(
            "--library", "Adds the bundled scenario library, found beside this binary (as `run --library`).")
    }

    static let spec = CommandSpec(
        "coverage", abstract: "Which APNs reasons and phone rules the scenarios demonstrate, and which none does.",
        operands: "DIR|FILE…",
        about: """
            Prints, as Markdown, every APNs reason and every rule of APNs and the phone (`ringside explain
            rules`) with the scenario lines that check it: `expect apns … reason:` or `goaway:` (an
            expectation that it happens: not `count: 0`), `expect phone … rules:`. Nothing is run: a
            line counts because its scenario passes, so run the same files (`ringside run`) to know.
            """,
        options: [Option.library],
        exitCodes: """
            Exit codes: 0 everything is covered, 1 something is not (listed at the end), 2 a scenario does
            not check, 64 bad arguments.
            """)

    /// Where something is shown: a file's line, and how.
    struct Place: Comparable, Hashable {
        var path: String
        var line: Int
        var how: String
        static func < (a: Place, b: Place) -> Bool { (a.path, a.line) < (b.path, b.line) }
        var text: String { "\(path):\(line)" }
    }

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: spec)
        if arguments.help() || raw.isEmpty {
            Output.out(spec.help)
            return raw.isEmpty ? ExitCode.usage : ExitCode.success
        }
        return runCommand {
            let library = arguments.flag(Option.library)
            let paths = try arguments.remaining() + (library ? [try ScenarioLibrary.required()] : [])
            var reasons: [Reason: [Place]] = [:]
            var rules: [PhoneRule: [Place]] = [:]
            var invalid = false
            // Each file once, however it was named (a folder and a file in it), shown as it was named.
            var seen = Set<String>()
            let files = try scenarioFiles(paths).filter {
                seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.path).inserted
            }
            for path in files {
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
                    // Only an expectation that it happens shows it: `count: 0` says it does not.
                    case .expectAPNs(let expectation) where expectation.count != 0:
                        if let reason = expectation.reason {
                            reasons[reason, default: []].append(Place(path: path, line: line, how: "answer"))
                        }
                        if let reason = expectation.goAway {
                            reasons[reason, default: []].append(Place(path: path, line: line, how: "GOAWAY"))
                        }
                    case .expectPhone(let expectation):
                        for rule in Set(expectation.rules) {
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
            let sorted = Array(Set(found)).sorted()
            let shown = sorted.prefix(3).map { "`\($0.text)` (\($0.how))" }.joined(separator: ", ")
            return shown + (sorted.count > 3 ? ", and \(sorted.count - 3) more" : "")
        }
        var lines = [
            "# Protocol coverage of the scenario library",
            "",
            "Made by `ringside coverage \(paths.joined(separator: " "))`; a test fails when this file differs from what",
            "it prints. A reason counts where a scenario checks that APNs answers it (`expect apns … reason:`)",
            "or sends it in a GOAWAY (`goaway:`); a rule where `expect phone … rules:` checks that a push's",
            "story shows it. Every scenario of the library passes (RunCommandTests), so each line holds.",
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
