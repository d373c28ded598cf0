import Foundation
import ScenarioLanguage
import Testing
import World

/// When each check is judged is declared once (`Judging`, Plan.swift); the language reference's
/// table "When an expectation is judged" says the same, row by row.
@Suite struct ExpectationTimingTests {
    static let phrase: [Judging: String] = [
        .whenItHolds: "as soon as it holds", .whenSettled: "when it holds, and again",
        .afterQuiet: "once the provider has settled", .atEnd: "at the scenario's end",
    ]

    /// The table's rows: the checks cell and the "judged" cell.
    static func rows() throws -> [(checks: String, judged: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let text = try String(contentsOfFile: root + "/docs/scenario-language.md", encoding: .utf8)
        let section = try #require(text.components(separatedBy: "### When an expectation is judged").dropFirst().first)
        return section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| check") }.map {
            let cells = $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return (cells[0], cells[1])
        }
    }

    static func documented(_ words: String) throws -> String? {
        try rows().first { $0.checks.contains(words) }?.judged
    }

    /// How the docs' table names a check of `Judging.checks`: `expect apns` with `count`,
    /// `goaway` without `count`, `reconnected: false`, `expect phone`.
    static func phrase(of check: String) -> String {
        var words = check
        for kind in ["expect apns", "expect provider", "expect load"] where words.hasPrefix(kind + " ") {
            words.removeFirst(kind.count + 1)
            if words.hasPrefix("with") { words = "`\(kind)` " + words }
        }
        if words == "expect phone" { return "`expect phone`" }
        for counted in [" without count", " with count"] where words.hasSuffix(counted) {
            let key = String(words.dropLast(counted.count))
            let head = key.hasPrefix("`") ? key : "`\(key)`"
            return head + counted.replacingOccurrences(of: "count", with: "`count`")
        }
        return "`\(words)`"
    }

    @Test("The docs' table says when each declared check is judged, as its declaration does")
    func tableMatchesDeclarations() throws {
        #expect(Judging.checks.count >= 16, "every check of every expectation has its rows")
        for (check, judging) in Judging.checks {
            let words = Self.phrase(of: check)
            guard let judged = try Self.documented(words) else {
                // Which piece is missing, and what to write (issue 47: the test said only `nil`).
                Issue.record(
                    "docs/scenario-language.md, \"When an expectation is judged\": no row names \(words), the check <\(check)> that its declaration judges \(judging.rawValue); add the row | \(words) | \(Self.phrase[judging]!) … |"
                )
                continue
            }
            #expect(judged.hasPrefix(Self.phrase[judging]!), "\(words): \(judging) but the docs say <\(judged)>")
        }
    }
}
