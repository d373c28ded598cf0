import Foundation
import FoundationXML
import TestSupport
import Testing

/// `ringside run --provider-file`: a team's own provider against the library's requirements, the
/// demonstrations skipped with why, a conformance summary, and a run that judges nothing failing.
@Suite(.serialized) struct ProviderFileTests {
    static let binary = Paths.ringside
    static let scenarios = Paths.root + "/scenarios"
    static let providers = Paths.root + "/Tests/providers"

    @Test("An http provider that keeps pushing after 410 fails the 410 requirements, and only those it should")
    func httpProviderKeepsPushingAfter410() throws {
        let folder = NSTemporaryDirectory() + "ringside-provider-file-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let junit = folder + "/junit.xml"
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--jobs", "2", "--junit", junit, "--report", folder + "/r.html",
                "--format", "github",
                "--provider-file", Self.providers + "/http-provider-keeps-410.ring", Self.scenarios,
            ])
        #expect(result.status == 1, "\(result.stdout)")
        // A demonstration names a provider other than the reference.
        let demonstrations = Paths.bundled.filter {
            let text = (try? String(contentsOfFile: Self.scenarios + "/" + $0, encoding: .utf8)) ?? ""
            return text.contains("\nprovider:") && !text.contains("builtin: reference")
        }.count
        #expect(demonstrations > 20)
        #expect(result.stdout.contains("demonstrations: \(demonstrations) skipped"), "\(result.stdout.suffix(400))")
        #expect(
            result.stdout.contains(
                "✘ failed  [Apple rule] forgets a token after 410 Unregistered and never pushes it again"),
            "\(result.stdout.suffix(3000))")
        #expect(result.stdout.contains("✔ passed  [practice] stores a device registered twice once, and rings it once"))
        #expect(result.stdout.contains("::notice file="))
        // The HTML report: a skipped row and a count of skipped scenarios.
        let page = try String(contentsOfFile: folder + "/r.html", encoding: .utf8)
        #expect(page.contains("skipped: a demonstration: it pins its own provider"))
        #expect(page.contains(" skipped</h1>"), "\(page.prefix(600))")
        // A demonstration is a skipped testcase with why.
        let xml = try XMLDocument(contentsOf: URL(fileURLWithPath: junit))
        let skipped = try xml.nodes(forXPath: "//testcase/skipped")
        #expect(skipped.count >= demonstrations)
        #expect(
            try xml.nodes(forXPath: "//testcase/skipped/@message").contains {
                $0.stringValue?.contains("pins its own provider") == true
            })
    }

    @Test("The same service without the mistake passes the 410 requirements")
    func httpProviderPasses() throws {
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--provider-file", Self.providers + "/http-provider.ring",
                Paths.scenario("04-410-forgets-token.ring"), Paths.scenario("67-expired-token.ring"),
                Paths.scenario("13-logout-unregisters.ring"),
            ])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(
            result.stdout.contains("requirements: 3 passed, 0 failed; demonstrations: 0 skipped"), "\(result.stdout)")
    }

    @Test("A requirement written for the other authentication is not applicable, never a check error")
    func otherAuthenticationNotApplicable() throws {
        let file = NSTemporaryDirectory() + "ringside-certificate-provider-\(getpid()).ring"
        try "provider:\n  exec: \"true\"\n  auth: certificate\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--provider-file", file, Paths.scenario("07-expired-jwt.ring"),
                Paths.scenario("08-goaway.ring"),
            ])
        #expect(result.stdout.contains("not applicable: 1"), "\(result.stdout)")
        #expect(!result.stdout.contains("does not check"), "\(result.stdout)")
    }

    @Test(
        "A run that judges nothing fails, and --jobs below 1 is refused",
        arguments: [
            (["--jobs", "0"], Int32(64), "--jobs <0> is not in 1...1024"),
            (["--shard", "3/3"], Int32(64), "selects no scenario"),
            (["--filter", "no-such-text-anywhere"], Int32(64), "matches no scenario"),
            (["--provider", "reference"], Int32(3), "nothing was judged"),
        ])
    func nothingJudged(options: [String], status: Int32, saying: String) throws {
        // Two demonstrations: with a provider under test both are skipped.
        let files = [
            Paths.scenario("44-missing-provider-token.ring"), Paths.scenario("45-invalid-provider-token.ring"),
        ]
        let result = try run(Self.binary, ["run", "--certs", Paths.certs] + options + files)
        #expect(result.status == status, "\(result.stdout) \(result.stderr)")
        #expect((result.stdout + result.stderr).contains(saying), "\(result.stdout) \(result.stderr)")
    }

    @Test("--provider takes an exec command")
    func execProvider() throws {
        let curl = VerdictPairs.curl()
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--provider", "exec: " + curl,
                Paths.scenario("73-keeps-its-connection.ring"),
            ])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("3 opened"), "\(result.stdout)")
    }

    /// A curl per push never uses an old connection, so scenario 22's sick one is never met: the
    /// requirement did not test it (as aioapns, which closes a connection idle for 10 s). A silent
    /// provider is not excused (HarnessCanFailTests.sendsNothing), nor one that meets the fault
    /// (RunCommandTests: sticks-to-sick-connection).
    @Test("A requirement whose fault the provider never met, every call rung, is not applicable and says why")
    func faultNeverMetIsNotApplicable() throws {
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--provider", "exec: " + VerdictPairs.curl(),
                Paths.scenario("22-sick-connection.ring"), Paths.scenario("01-a-call-rings.ring"),
            ])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(
            result.stdout.contains(
                "not applicable: the provider never met the fault armed at line 14 (stale-connections) (2 pushes on 2 connections"
            ), "\(result.stdout)")
        #expect(result.stdout.contains("requirements: 1 passed, 0 failed"), "\(result.stdout)")
    }
}
