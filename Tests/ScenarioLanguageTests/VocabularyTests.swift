import APNs
import Foundation
import ScenarioLanguage
import Testing

/// Every word is declared once (`Vocabulary`, Sources/ScenarioLanguage/Steps/); the language
/// reference's tables must say what the declarations say, row by row.
@Suite struct VocabularyTests {
    static func section(_ title: String) throws -> [[String]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let text = try String(contentsOfFile: root + "/docs/scenario-language.md", encoding: .utf8)
        let body = try #require(text.components(separatedBy: "\n## \(title)\n").dropFirst().first)
        let until = body.components(separatedBy: "\n## ").first ?? body
        return until.split(separator: "\n").filter { $0.hasPrefix("| ") }.dropFirst(1).map {
            $0.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// The `word`s quoted in a cell.
    static func quoted(_ cell: String) -> Set<String> {
        Set(
            cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map
            { String($0.element) })
    }

    @Test("The Steps table has a row for every declared step, naming each of its options")
    func stepsTable() throws {
        let rows = try Self.section("Steps")
        for step in Vocabulary.steps {
            let row = try #require(
                rows.first { Self.quoted($0[0]).contains { $0 == step.name || $0.hasPrefix(step.name + ":") } },
                "no row of the Steps table names <\(step.name)>")
            // The fault row points to the Faults table, which gives each fault its options.
            let said =
                step.name == "fault"
                ? try Self.section("Faults").reduce(into: Set<String>()) { $0.formUnion(Self.quoted($1[1])) }
                : Self.quoted(row[1])
            for option in step.options {
                #expect(said.contains(option.key), "the Steps table's <\(step.name)> row does not name <\(option.key)>")
            }
        }
    }

    @Test("The Faults table gives each fault exactly the options its declaration takes")
    func faultsTable() throws {
        let rows = try Self.section("Faults")
        for action in FaultSpec.Action.allCases {
            let name = action == .answer ? "<APNs reason>" : action.rawValue
            let row = try #require(rows.first { Self.quoted($0[0]).contains(name) }, "no row for <\(name)>")
            #expect(Self.quoted(row[1]) == Set(FaultStep.options(action)), "<\(name)>: \(row[1])")
        }
    }

    @Test("Every declared option says what it takes; numbers and durations have their ranges")
    func valueKinds() {
        for step in Vocabulary.steps {
            #expect(!step.meaning.isEmpty, "\(step.name)")
            for option in step.options {
                #expect(!option.meaning.isEmpty && !option.takes.described.isEmpty, "\(step.name).\(option.key)")
            }
        }
        #expect(Schema.steps.count == Vocabulary.steps.count, "one declaration per step")
    }
}
