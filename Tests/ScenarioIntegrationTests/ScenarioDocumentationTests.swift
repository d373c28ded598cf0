import APNs
import Foundation
import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// Every `ring` example of docs/scenario-language.md checks clean and passes when run.
@Suite struct ScenarioDocumentationTests {
    static func examples() throws -> [String] {
        let markdown = try String(contentsOfFile: Paths.root + "/docs/scenario-language.md", encoding: .utf8)
        var examples: [String] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            if line == "```ring" {
                current = []
            } else if line == "```", let lines = current {
                examples.append(lines.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return examples
    }

    @Test("The language reference's examples run and pass", arguments: try! examples().indices)
    func examplePasses(index: Int) throws {
        let text = try Self.examples()[index]
        let file = SourceFile(path: Paths.root + "/docs/scenario-language.md#example-\(index + 1)", text: text)
        #expect(Checker.check(file).isEmpty, "example \(index + 1): \(Checker.check(file).map(\.detail))")
        let result = ScenarioRunner.run(file, certs: Paths.certs)
        #expect(
            result.passed,
            "example \(index + 1): \(result.expectations.filter { !$0.passed }.map(\.happened)) \(result.error ?? "")")
    }

    @Test("The reference lists every placeholder and every fault action, and shows each action in an example")
    func listsTheVocabulary() throws {
        let markdown = try String(contentsOfFile: Paths.root + "/docs/scenario-language.md", encoding: .utf8)
        let rows = markdown.components(separatedBy: "\n").filter { $0.hasPrefix("| `{") }
        for placeholder in Placeholder.allCases {
            #expect(
                rows.contains { $0.contains("`\(placeholder.token)`") },
                "\(placeholder.token) is not in the placeholder table")
        }
        let examples = try Self.examples()
        for action in FaultSpec.Action.allCases where action != .answer {
            #expect(markdown.contains("| `\(action.rawValue)` |"), "\(action.rawValue) is not in the fault table")
            #expect(
                examples.contains { $0.contains("- fault: \(action.rawValue)\n") },
                "no example arms \(action.rawValue)")
        }
        #expect(examples.contains { $0.contains("- fault: ServiceUnavailable") }, "no example answers with a reason")
    }
}
