import APNs
import Foundation
import ScenarioLanguage
import TestSupport
import Testing

/// Every `ring` example of docs/scenario-language.md checks clean and passes when run: here those
/// that run in memory (the built-in provider alone); those that need a socket are in
/// ScenarioIntegrationTests.
@Suite struct ScenarioDocumentationTests {
    @Test(
        "The language reference's examples run and pass (in memory)",
        arguments: LanguageReference.indices(inMemory: true))
    func examplePasses(index: Int) throws { try expectTheExamplePasses(index) }

    @Test("The reference lists every placeholder and every fault action, and shows each action in an example")
    func listsTheVocabulary() throws {
        let markdown = try String(contentsOfFile: LanguageReference.path, encoding: .utf8)
        #expect(
            !LanguageReference.indices(inMemory: true).isEmpty && !LanguageReference.indices(inMemory: false).isEmpty)
        let rows = markdown.components(separatedBy: "\n").filter { $0.hasPrefix("| `{") }
        for placeholder in Placeholder.allCases {
            #expect(
                rows.contains { $0.contains("`\(placeholder.token)`") },
                "\(placeholder.token) is not in the placeholder table")
        }
        let examples = try LanguageReference.examples()
        for action in FaultSpec.Action.allCases where action != .answer {
            #expect(markdown.contains("| `\(action.rawValue)` |"), "\(action.rawValue) is not in the fault table")
            #expect(
                examples.contains { $0.contains("- fault: \(action.rawValue)\n") },
                "no example arms \(action.rawValue)")
        }
        #expect(examples.contains { $0.contains("- fault: ServiceUnavailable") }, "no example answers with a reason")
    }
}
