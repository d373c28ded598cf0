import Foundation
import ScenarioLanguage
import Testing

/// The scenario language: parsing into a tree with positions, checking with diagnostics (golden).
@Suite struct ScenarioLanguageTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("golden/scenarios").path

    func file(_ text: String) -> SourceFile { SourceFile(path: "test.ring", text: text) }

    @Test("Blocks, lists, inline lists, quoted values, text blocks and comments, each with its position")
    func parses() throws {
        let text = """
            scenario: "A # in quotes"  # a comment
            teaches: |
              Line one.
              Line two.
            apns:
              folklore: [dead-token-penalty, daily-voip-budget]
            steps:
              - call: alice
                from: bob
              - advance: 2h
            """
        let root = try Parser.parse(file(text)).get()
        #expect(root.entries.map(\.key) == ["scenario", "teaches", "apns", "steps"])
        guard case .scalar(let name) = root.value("scenario") else { throw ScenarioTestError("scenario") }
        #expect(name.text == "A # in quotes")
        #expect(name.range.start == SourceLocation(line: 1, column: 11))
        guard case .scalar(let teaches) = root.value("teaches") else { throw ScenarioTestError("teaches") }
        #expect(teaches.text == "Line one.\nLine two.")
        guard case .mapping(let apns) = root.value("apns"), case .sequence(let folklore) = apns.value("folklore") else {
            throw ScenarioTestError("folklore")
        }
        #expect(folklore.items.count == 2)
        guard case .sequence(let steps) = root.value("steps"), case .mapping(let call) = steps.items[0] else {
            throw ScenarioTestError("steps")
        }
        #expect(call.entries.map(\.key) == ["call", "from"])
        #expect(call.entries[1].keyRange.start == SourceLocation(line: 9, column: 5))
    }

    @Test("Durations", arguments: [("250ms", 0.25), ("30s", 30), ("5m", 300), ("2h", 7200), ("1d", 86400)])
    func durations(text: String, seconds: Double) {
        #expect(parseDuration(text) == seconds)
    }

    @Test("Not durations", arguments: ["2 hours", "h", "-1s", "1x", ""])
    func notDurations(text: String) {
        #expect(parseDuration(text) == nil)
    }

    @Test("Rates: <N per DURATION> or <off>; anything else is reported at the value")
    func rates() {
        #expect(parseRate("3 per 60s")! == (3, 60))
        #expect(parseRate("off")! == (0, 0))
        for text in ["3/60s", "0 per 60s", "3 per", "three per 60s", "3 per 0s"] { #expect(parseRate(text) == nil) }
        let problems = Checker.check(file("scenario: a\nworld:\n  throttle: 3/60s\nsteps:\n  - advance: 1s\n"))
        #expect(problems.map(\.title) == ["Not a rate"])
        #expect(problems.first?.range.start == SourceLocation(line: 3, column: 13))
    }

    @Test("A well-formed scenario checks clean")
    func clean() throws {
        let path = Self.golden + "/ghost-call.ring"
        let problems = Checker.check(SourceFile(path: path, text: try String(contentsOfFile: path, encoding: .utf8)))
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test("Diagnostics match their golden files", arguments: ["typos", "bad-indent"])
    func goldenDiagnostics(name: String) throws {
        let path = "Tests/golden/scenarios/\(name).ring"
        let root = URL(fileURLWithPath: Self.golden).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
        let file = SourceFile(path: path, text: text)
        let problems = Checker.check(file)
        let rendered =
            problems.map { $0.render(in: file) + "\n" }.joined()
            + "\(path): \(problems.count) problem\(problems.count == 1 ? "" : "s")\n"
        let expected = try String(contentsOfFile: root + "/" + path + ".out", encoding: .utf8)
        #expect(rendered == expected)
    }

    @Test("Duplicate keys, tabs, missing keys and unclosed quotes are reported where they are")
    func structuralErrors() {
        let duplicate = Checker.check(file("scenario: a\nscenario: b\nsteps:\n  - online: x\n"))
        #expect(duplicate.first?.title == "Duplicate key")
        #expect(duplicate.first?.range.start == SourceLocation(line: 2, column: 1))
        #expect(Checker.check(file("scenario: a\n\tsteps: x\n")).first?.title == "Tab character")
        let missing = Checker.check(file("scenario: a\n"))
        #expect(missing.map(\.detail) == ["a scenario needs <steps>"])
        #expect(Checker.check(file("scenario: \"a\nsteps:\n  - online: x\n")).first?.title == "Unclosed quote")
    }

    @Test("A file nested thousands of levels deep is refused at the 33rd level, not a stack overflow")
    func deepNesting() {
        var lines = ["scenario: deep", "steps:", "  - advance: 1s", "world:"]
        for level in 0..<7000 { lines.append(String(repeating: " ", count: 2 * (level + 1)) + "a\(level):") }
        let problems = Checker.check(file(lines.joined(separator: "\n") + " x\n"))
        #expect(problems.map(\.title) == ["Too deeply nested"])
    }
}

struct ScenarioTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
