import Foundation
import TestSupport
import Testing

/// The scenario library's coverage as `ringside coverage` prints it: every reason and rule
/// demonstrated (docs/coverage.md, which cannot go stale).
@Suite struct LibraryCoverageTests {
    @Test("docs/coverage.md is what `ringside coverage scenarios` prints now, and nothing is uncovered")
    func coverageIsCurrent() throws {
        let result = try run(Paths.ringside, ["coverage", "scenarios"], directory: Paths.root)
        #expect(result.status == 0, "\(result.stdout.suffix(600))")
        #expect(result.stdout.contains("## Not covered\n\nNothing."))
        let file = try String(contentsOfFile: Paths.root + "/docs/coverage.md", encoding: .utf8)
        #expect(
            file == result.stdout, "docs/coverage.md is stale: run `ringside coverage scenarios > docs/coverage.md`")
        // One topic alone covers only its part: the command can say "not covered".
        let part = try run(Paths.ringside, ["coverage", "scenarios/phone"], directory: Paths.root)
        #expect(part.status == 1)
        #expect(part.stdout.contains("| `BadPriority` | 400 | **not covered** |"), "\(part.stdout.prefix(600))")
    }
}
