import Foundation
import ScenarioLanguage
import TestSupport
import Testing
import World

/// Every block key is described where a user looks: a scenario's in docs/scenario-language.md's
/// "Sections" table (its block's row), an app's JSON spelling in docs/control-api.md. A key added to
/// a declaration (Blocks/, World/AppDescription.swift) and not to the docs fails here, naming both.
@Suite struct BlockDocumentationTests {
    static func text(_ file: String) throws -> String {
        try String(contentsOfFile: Paths.root + "/docs/" + file, encoding: .utf8)
    }

    @Test("Every block key is in its block's row of the language reference's Sections table")
    func scenarioKeys() throws {
        let sections = try #require(
            try Self.text("scenario-language.md").components(separatedBy: "## Sections").dropFirst().first?
                .components(separatedBy: "\n## ").first)
        let rows = sections.split(separator: "\n").filter { $0.hasPrefix("| `") }.map(String.init)
        func row(_ block: String) -> String? { rows.first { $0.hasPrefix("| `\(block)`") } }
        for key in Schema.top {
            #expect(
                rows.contains { $0.contains("`\(key)`") }, "docs/scenario-language.md, Sections: no row names `\(key)`")
        }
        let blocks: [(row: String, keys: [String])] = [
            ("apns", Schema.apns), ("world", Schema.world), ("phones", Schema.phone + Schema.app),
            ("provider", Schema.provider),
        ]
        for (block, keys) in blocks {
            let text = try #require(row(block), "docs/scenario-language.md, Sections: no row for `\(block)`")
            for key in keys {
                #expect(
                    text.contains("`\(key)`") || text.contains("`\(key): "),
                    "docs/scenario-language.md, Sections, row `\(block)`: add `\(key)`")
            }
        }
    }

    @Test("Every app key's JSON spelling is in docs/control-api.md")
    func controlAPIKeys() throws {
        let text = try Self.text("control-api.md")
        for key in AppKey.allCases {
            #expect(text.contains("`\(key.jsonKey)`"), "docs/control-api.md, Phones and apps: add `\(key.jsonKey)`")
        }
    }
}
