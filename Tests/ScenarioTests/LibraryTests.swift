import Foundation
import ScenarioLanguage
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

    @Test(
        "Every requirement states its obligation of the provider and what it rests on; folklore only where it is opted in"
    )
    func everyRequirementStatesItsObligation() throws {
        for relative in Paths.bundled {
            let path = Paths.root + "/scenarios/" + relative
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let plan = try #require(Checker.plan(SourceFile(path: path, text: text)).plan, "\(relative)")
            guard !plan.pinsProvider else { continue }
            let obligation = try #require(plan.obligation, "\(relative) states no obligation:")
            #expect(!obligation.hasPrefix("The reference provider"), "\(relative): the provider's obligation, not ours")
            let basis = try #require(plan.basis, "\(relative) says no basis:")
            let optsIn = !plan.apns.folklore.isEmpty
            #expect((basis == .folklore) == optsIn, "\(relative): basis \(basis) but folklore opted in: \(optsIn)")
        }
    }
}
