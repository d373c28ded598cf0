import Foundation
import TestSupport
import Testing

/// The scenario library as a newcomer meets it: a `teaches:` paragraph in every file, a README per
/// topic listing its files. (That every reason and rule is demonstrated is CommandLineTests'
/// `LibraryCoverageTests`, through `ringside coverage`.)
@Suite struct LibraryTests {
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
