import Foundation
import TestSupport
import Testing

/// The scenario library as a newcomer meets it: every reason and rule demonstrated (docs/coverage.md,
/// which cannot go stale), a `teaches:` paragraph in every file, a README per topic listing its files.
@Suite struct LibraryTests {
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

    @Test("Every bundled scenario teaches, and its folder's README lists it")
    func everyScenarioTeaches() throws {
        for relative in Paths.bundled {
            let text = try String(contentsOfFile: Paths.root + "/scenarios/" + relative, encoding: .utf8)
            #expect(text.contains("\nteaches: |\n"), "\(relative) has no teaches: paragraph")
            let folder = (relative as NSString).deletingLastPathComponent
            #expect(!folder.isEmpty, "\(relative) is not in a topic folder")
            let readme = try String(contentsOfFile: Paths.root + "/scenarios/\(folder)/README.md", encoding: .utf8)
            #expect(
                readme.contains("(\((relative as NSString).lastPathComponent))"),
                "\(folder)/README.md misses \(relative)")
        }
    }
}
