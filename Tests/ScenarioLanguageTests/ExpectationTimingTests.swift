import Foundation
import ScenarioLanguage
import Testing
import World

/// When each check is judged is declared once (`Judging`, Plan.swift); the language reference's
/// table "When an expectation is judged" says the same, row by row.
@Suite struct ExpectationTimingTests {
    static let phrase: [Judging: String] = [
        .whenItHolds: "as soon as it holds", .whenSettled: "when it holds, and again",
        .afterQuiet: "once the provider is quiet", .atEnd: "at the scenario's end",
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

    static func apns(_ build: (inout APNsExpectation) -> Void) -> APNsExpectation {
        var expectation = APNsExpectation(label: "t")
        build(&expectation)
        return expectation
    }

    @Test("The docs' table says when each check is judged, as its declaration does")
    func tableMatchesDeclarations() throws {
        var provider = ProviderExpectation(label: "t")
        let cases: [(String, Judging)] = [
            ("`refused-streams`", Self.apns { _ in }.judging.refusedStreams),
            ("`expect apns` with `count`", Self.apns { $0.count = 1 }.judging.requests),
            ("`expect apns` without `count`", Self.apns { _ in }.judging.requests),
            ("`goaway` without `count`", Self.apns { _ in }.judging.goAway),
            ("`connections-at-most`", provider.judging(.connectionsAtMost)),
            ("`never-pushes`", provider.judging(.neverPushes)),
            ("`retried`", provider.judging(.retried)),
            (
                "`expect phone`",
                PhoneExpectation(phone: PhoneRef(index: 0, name: "a"), outcome: .rang, within: 2).judging
            ),
        ]
        for (words, judging) in cases {
            let judged = try #require(try Self.documented(words), "no row names \(words)")
            #expect(judged.hasPrefix(Self.phrase[judging]!), "\(words): \(judging) but the docs say <\(judged)>")
        }
        provider.reconnected = false
        #expect(
            try Self.documented("`reconnected: false`")?.hasPrefix(Self.phrase[provider.judging(.reconnected)]!) == true
        )
        provider.reconnected = true
        #expect(
            try Self.documented("`reconnected: true`")?.hasPrefix(Self.phrase[provider.judging(.reconnected)]!) == true)
    }
}
