import Foundation
import TestSupport
import Testing

/// The client conformance table (docs/clients.md, "Conformance, client by client") is what
/// `scripts/client-conformance.sh` prints: one client's column is run again here and must say what
/// the table says, cell by cell (a cell is a test). aioapns: the client of examples/python-service.
@Suite struct ClientConformanceTests {
    @Test("aioapns's column of the table is what the script prints now")
    func aioapnsColumnIsCurrent() throws {
        let result = try run(
            "/usr/bin/env", ["RINGSIDE=\(Paths.ringside)", "bash", "scripts/client-conformance.sh", "aioapns"],
            directory: Paths.root)
        #expect(result.status == 0, "\(result.stderr)")
        let docs = try String(contentsOfFile: Paths.root + "/docs/clients.md", encoding: .utf8)
        let section = try #require(docs.components(separatedBy: "<!-- client-conformance -->\n").dropFirst().first)
        let table = Substring(section.components(separatedBy: "<!-- /client-conformance -->")[0])
        let header = try #require(table.split(separator: "\n").first).split(
            separator: "|", omittingEmptySubsequences: false
        ).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let column = try #require(header.firstIndex(of: "aioapns"))
        /// Each requirement's cell in a table's column.
        func cells(_ markdown: Substring, column: Int) -> [String: String] {
            var cells: [String: String] = [:]
            for row in markdown.split(separator: "\n") where row.hasPrefix("| `") {
                let fields = row.split(separator: "|", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                cells[String(fields[1].split(separator: "`")[0])] = fields[column]
            }
            return cells
        }
        let documented = cells(table, column: column)
        let now = cells(Substring(result.stdout), column: 2)
        #expect(!now.isEmpty && now.count == documented.count, "\(result.stdout)")
        for (requirement, cell) in now {
            // An unstable cell in the docs says so; the run gives one of its verdicts.
            let expected = documented[requirement] ?? "missing"
            let holds = expected.hasPrefix("unstable") ? expected.contains(cell) : expected == cell
            #expect(holds, "\(requirement): the docs say <\(expected)>, the run says <\(cell)>")
        }
    }
}
