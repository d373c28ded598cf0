import Foundation
import Scenario
import ScenarioLanguage
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

    @Test("The language reference's examples run and pass")
    func examplesPass() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 3)
        for (index, text) in examples.enumerated() {
            let file = SourceFile(path: "docs/scenario-language.md#example-\(index + 1)", text: text)
            #expect(Checker.check(file).isEmpty, "example \(index + 1)")
            let result = ScenarioRunner.run(file, certs: Paths.certs)
            #expect(
                result.passed,
                "example \(index + 1): \(result.expectations.filter { !$0.passed }.map(\.happened)) \(result.error ?? "")"
            )
        }
    }
}
