import Foundation
import FoundationXML
import TestSupport
import Testing

/// `ringside run` over the bundled scenario library: all pass against the reference provider, and a
/// broken provider fails at the right line with the right explanation.
@Suite(.serialized) struct RunCommandTests {
    static let binary = Paths.ringside
    static let scenarios = Paths.root + "/scenarios"

    @Test("Every bundled scenario passes against the built-in provider")
    func libraryPasses() throws {
        let result = try run(Self.binary, ["run", "--certs", Paths.certs, Self.scenarios])
        #expect(result.status == 0, "\(result.stdout)")
        let count = Paths.bundled.count
        #expect(count >= 11)
        #expect(result.stdout.contains("scenarios: \(count) passed, 0 failed"))
    }

    @Test(
        "A broken provider fails at the right line with the right explanation",
        arguments: [
            (
                "04-410-forgets-token.ring", "keeps-pushing-after-410", "04-410-forgets-token.ring:18:5",
                "after a refusal"
            ),
            (
                "02-expiration-zero-no-ghost.ring", "non-zero-expiration", "02-expiration-zero-no-ghost.ring:14:5",
                "happened: rang-late"
            ),
            (
                "01-a-call-rings.ring", "forgets-voip-suffix", "01-a-call-rings.ring:18:5",
                "no push to this phone was delivered; APNs answered 400 TopicDisallowed (connection 1)"
            ),
            (
                "10-duplicate-registration.ring", "registers-twice", "10-duplicate-registration.ring:13:5",
                "happened: 2 of 2 requests matched"
            ),
            (
                "15-goaway-then-call-again.ring", "ignores-goaway", "15-goaway-then-call-again.ring:21:5",
                "no push reached APNs for this phone"
            ),
            (
                "06-backoff-on-503.ring", "no-backoff-on-503", "06-backoff-on-503.ring:15:5",
                "happened: 2 retries, after 0.000 s, 0.000 s"
            ),
            (
                "16-per-token-throttling.ring", "no-backoff-on-503", "16-per-token-throttling.ring:36:5",
                "happened: 3 retries, after 0.000 s, 0.000 s, 0.000 s"
            ),
            (
                "17-sandbox-token-to-production.ring", "prunes-only-on-410",
                "17-sandbox-token-to-production.ring:25:5", "1 push after a refusal"
            ),
            (
                "21-permanent-goaway.ring", "reconnect-storm", "21-permanent-goaway.ring:24:5",
                "at most 1 connection to APNs"
            ),
            (
                "22-sick-connection.ring", "sticks-to-sick-connection", "22-sick-connection.ring:24:5",
                "500 InternalServerError (connection 1), 500 InternalServerError (connection 1)"
            ),
            (
                "23-impostor-server.ring", "skips-server-verification", "23-impostor-server.ring:15:5",
                "happened: 1 of 1 requests matched"
            ),
            (
                "24-burst-before-settings.ring", "drops-refused-streams", "24-burst-before-settings.ring:38:5",
                "refused unprocessed (REFUSED_STREAM, over MAX_CONCURRENT_STREAMS 1"
            ),
            (
                "01-a-call-rings.ring", "priority-5", "01-a-call-rings.ring:18:5",
                "happened: not-delivered (low-priority)"
            ),
        ])
    func brokenProvider(file: String, profile: String, location: String, explanation: String) throws {
        let result = try run(
            Self.binary, ["run", "--certs", Paths.certs, "--provider", profile, Paths.scenario(file)])
        #expect(result.status == 1)
        #expect(result.stdout.contains(location), "\(result.stdout)")
        #expect(result.stdout.contains(explanation), "\(result.stdout)")
    }

    @Test(
        "apns certificate: expired makes the handshake fail; `refused:` checks the mock's reason, and says it when wrong"
    )
    func refusedHandshake() throws {
        let passing = try run(
            Self.binary, ["run", "--certs", Paths.certs, Paths.scenario("19-expired-provider-certificate.ring")])
        #expect(passing.status == 0, "\(passing.stdout)")
        let text = try String(contentsOfFile: Paths.scenario("19-expired-provider-certificate.ring"), encoding: .utf8)
        let path = NSTemporaryDirectory() + "ringside-refused-\(UUID().uuidString).ring"
        try text.replacingOccurrences(of: "certificate: expired", with: "certificate: voip").write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let failing = try run(Self.binary, ["run", "--certs", Paths.certs, path])
        #expect(failing.status == 1)
        #expect(
            failing.stdout.contains(
                "expected a connection refused: certificate has expired; happened: no connection was refused"),
            "\(failing.stdout)")
    }

    /// Issue 46: a `.ring` over 1 MiB in a folder stopped the run (exit 3, nothing judged, no JUnit).
    @Test("An oversized scenario in a folder is one scenario that does not check; the others run")
    func oversizedScenario() throws {
        let folder = NSTemporaryDirectory() + "ringside-large-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(
            atPath: Paths.scenario("01-a-call-rings.ring"), toPath: folder + "/01-a-call-rings.ring")
        try ("scenario: huge\n" + String(repeating: "#", count: 1 << 20)).write(
            toFile: folder + "/02-huge.ring", atomically: true, encoding: .utf8)
        let result = try run(Self.binary, ["run", "--certs", Paths.certs, "--junit", folder + "/j.xml", folder])
        #expect(result.status == 2, "\(result.stdout) \(result.stderr.suffix(300))")
        #expect(result.stdout.contains("1 passed, 1 failed"), "\(result.stdout)")
        #expect((result.stdout + result.stderr).contains("larger than 1 MiB"))
        let junit = try String(contentsOfFile: folder + "/j.xml", encoding: .utf8)
        #expect(junit.contains("02-huge") && junit.contains("tests=\"2\""), "\(junit.prefix(400))")
        let checked = try run(Self.binary, ["check", folder + "/02-huge.ring"])
        #expect(checked.status == 2, "\(checked.stderr)")
        #expect(try run(Self.binary, ["check", folder + "/none.ring"]).status == 64)
    }

    /// Issue 46: a `--certs` or `RINGSIDE_CERTS` that named no credentials fell back to
    /// `./certs-test` in silence, and `--transcript FILE` printed Foundation's NSError text.
    @Test("What the user named is used or is an error, said in words")
    func namedPathsAreUsedOrRefused() throws {
        let ring = Paths.scenario("01-a-call-rings.ring")
        // Run in the checkout, where ./certs-test exists to fall back on.
        let typo = try run(Self.binary, ["run", "--certs", Paths.root + "/certs-tset", ring], directory: Paths.root)
        #expect(typo.status == 3 && typo.stderr.contains("holds no test credentials"), "\(typo.stderr)")
        let environment = try run(
            Self.binary, ["run", ring], directory: Paths.root, environment: ["RINGSIDE_CERTS": "/nonexistent/certs"])
        #expect(environment.status == 3 && environment.stderr.contains("RINGSIDE_CERTS"), "\(environment.stderr)")
        let file = NSTemporaryDirectory() + "ringside-transcript-\(UUID().uuidString)"
        try "".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        for target in [file, file + "/inside"] {
            let result = try run(Self.binary, ["run", "--certs", Paths.certs, "--transcript", target, ring])
            #expect(result.status != 0, "\(target)")
            #expect(!result.stderr.contains("Domain="), "\(target): \(result.stderr)")
            #expect(
                result.stderr.contains("takes a folder") || result.stderr.contains("Not a directory"),
                "\(result.stderr)")
        }
    }

    @Test("An exec provider that is a curl one-liner is driven end to end; ignoring 410 fails at the expectation")
    func execProvider() throws {
        let golden = Paths.root + "/Tests/golden/scenarios"
        let rings = try run(Self.binary, ["run", "--certs", Paths.certs, golden + "/exec-curl-rings.ring"])
        #expect(rings.status == 0, "\(rings.stdout)")
        let ignores = try run(Self.binary, ["run", "--certs", Paths.certs, golden + "/exec-curl-ignores-410.ring"])
        #expect(ignores.status == 1)
        #expect(ignores.stdout.contains("exec-curl-ignores-410.ring:13:5"))
        #expect(ignores.stdout.contains("1 push after a refusal"))
    }

    @Test("An http provider written in Python with the standard library only is started, driven and stopped")
    func httpProvider() throws {
        let result = try run(
            Self.binary,
            ["run", "--certs", Paths.certs, Paths.root + "/Tests/golden/scenarios/http-python-provider.ring"])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("scenarios: 1 passed, 0 failed"))
    }

    @Test("--junit writes a JUnit XML report with one testcase per scenario and the failure's message")
    func junit() throws {
        let path = NSTemporaryDirectory() + "ringside-junit-\(UUID().uuidString).xml"
        let golden = Paths.root + "/Tests/golden/scenarios"
        _ = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--junit", path, golden + "/exec-curl-rings.ring",
                golden + "/exec-curl-ignores-410.ring",
            ])
        let xml = try String(contentsOfFile: path, encoding: .utf8)
        #expect(xml.contains(#"<testsuite name="ringside" tests="2" failures="1""#))
        #expect(xml.contains("<failure message="))
        #expect(xml.contains("exec-curl-ignores-410.ring:13:5"))
        #expect(try XMLDocument(xmlString: xml).rootElement()?.name == "testsuite")
    }

    @Test("--jobs runs scenarios in parallel, --shard splits them, --transcript writes one JSONL per scenario")
    func jobsShardsTranscripts() throws {
        let directory = NSTemporaryDirectory() + "ringside-transcripts-\(UUID().uuidString)"
        let all = try run(
            Self.binary, ["run", "--certs", Paths.certs, "--jobs", "3", "--transcript", directory, Self.scenarios])
        #expect(all.status == 0, "\(all.stdout)")
        let count = Paths.bundled.count
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == count)
        let line = try String(contentsOfFile: directory + "/01-a-call-rings.jsonl", encoding: .utf8).split(
            separator: "\n"
        ).first
        #expect(line.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil } == true)
        var shardTotal = 0
        for k in 1...3 {
            let shard = try run(Self.binary, ["run", "--certs", Paths.certs, "--shard", "\(k)/3", Self.scenarios])
            let summary = shard.stdout.split(separator: "\n").last.map(String.init) ?? ""
            shardTotal += Int(summary.split(separator: " ")[1]) ?? 0
        }
        #expect(shardTotal == count)
    }

    @Test("--report writes one HTML page that a real headless browser renders, showing the failed step")
    func htmlReport() throws {
        let report = NSTemporaryDirectory() + "ringside-report-\(UUID().uuidString).html"
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--provider", "non-zero-expiration", "--report", report,
                Paths.scenario("01-a-call-rings.ring"), Paths.scenario("02-expiration-zero-no-ghost.ring"),
            ])
        #expect(result.status == 1)
        let chromium = try run(
            "/usr/bin/chromium", ["--headless", "--disable-gpu", "--no-sandbox", "--dump-dom", "file://" + report])
        // The page's script counted the failed steps after rendering: the browser ran it.
        #expect(
            chromium.stdout.contains("<title>Ringside: 1 of 2 scenarios failed, 1 failed expectation(s)</title>"),
            "\(chromium.stderr.suffix(300))")
        #expect(
            chromium.stdout.contains(
                "✘ line 14: expected not-delivered (offline-not-stored) on alice, by the rules expiration-zero-not-stored; happened: rang-late"
            ))
        #expect(chromium.stdout.contains(#"<section class="scenario passed""#))
        #expect(chromium.stdout.contains(#"<section class="scenario failed""#))
    }

    @Test(
        "The report's diagram of scenario 08, rendered by chromium, shows the GOAWAY, the second connection and the resend"
    )
    func goAwayDiagram() throws {
        let report = NSTemporaryDirectory() + "ringside-report-08-\(UUID().uuidString).html"
        let result = try run(
            Self.binary, ["run", "--certs", Paths.certs, "--report", report, Paths.scenario("08-goaway.ring")])
        #expect(result.status == 0, "\(result.stdout)")
        let chromium = try run(
            "/usr/bin/chromium", ["--headless", "--disable-gpu", "--no-sandbox", "--dump-dom", "file://" + report])
        let dom = chromium.stdout
        #expect(dom.contains("<title>Ringside: 0 of 1 scenarios failed, 0 failed expectation(s)</title>"))
        // Rows of the diagram, in order: the GOAWAY on connection 1, then connection 2 and pushes on it.
        let rows = dom.components(separatedBy: "<div class=\"event ").dropFirst().map { String($0) }
        let goAway = rows.firstIndex { $0.hasPrefix("kind-goaway") && $0.contains("GOAWAY Shutdown, last stream 1") }
        let second = rows.firstIndex { $0.hasPrefix("kind-connection") && $0.contains("connection 2 opened") }
        let resent = rows.lastIndex { $0.hasPrefix("kind-request") && $0.contains("#2</span>") }
        #expect(goAway != nil, "no GOAWAY row")
        #expect(second != nil, "no second connection")
        #expect(resent != nil, "no push on connection 2")
        if let goAway, let second, let resent { #expect(goAway < second && second < resent) }
        // Each request opens its header-by-header explanation; the phone's story is on its lifeline.
        #expect(dom.contains("apns-push-type: voip — "))
        #expect(rows.filter { $0.hasPrefix("kind-phone") && $0.contains("the phone rings") }.count == 3)
        // Filters: the summary's buttons hide passed scenarios.
        #expect(dom.contains(#"<button data-show="failed">failed 0</button>"#))
    }

    @Test(
        "Replaying a recorded run against the same provider finds no difference; a changed provider is named at its first request"
    )
    func replay() throws {
        let directory = NSTemporaryDirectory() + "ringside-replay-\(UUID().uuidString)"
        let scenario = Paths.scenario("06-backoff-on-503.ring")
        #expect(try run(Self.binary, ["run", "--certs", Paths.certs, "--transcript", directory, scenario]).status == 0)
        let transcript = directory + "/06-backoff-on-503.jsonl"
        let same = try run(Self.binary, ["replay", "--certs", Paths.certs, transcript, "--scenario", scenario])
        #expect(same.status == 0)
        #expect(same.stdout.contains("no difference"))
        let changed = try run(
            Self.binary,
            ["replay", "--certs", Paths.certs, transcript, "--scenario", scenario, "--provider", "priority-5"])
        #expect(changed.status == 1)
        #expect(changed.stdout.contains("request 1 differs: apns-priority was <10>, now <5>"))
        // The same requests, sent without back-off: no request differs, but the expectation fails
        // at its line and the retries are named as sooner than recorded.
        let hasty = try run(
            Self.binary,
            ["replay", "--certs", Paths.certs, transcript, "--scenario", scenario, "--provider", "no-backoff-on-503"])
        #expect(hasty.status == 1, "\(hasty.stdout)")
        #expect(hasty.stdout.contains("06-backoff-on-503.ring:15:5"), "\(hasty.stdout)")
        #expect(hasty.stdout.contains("expected at least 2 retries with back-off"))
        #expect(hasty.stdout.contains("request 2 (a retry after 503 ServiceUnavailable) came"))
        #expect(hasty.stdout.contains("(sooner)"))
        #expect(!hasty.stdout.contains("request 1 differs"))
        // 20,000 other events before each retry: the replay reads them, and its reading is not
        // counted as the provider's back-off (the adversary saw "later" here).
        let lines = try String(contentsOfFile: transcript, encoding: .utf8).split(separator: "\n").map(String.init)
        let pushes = lines.indices.filter { lines[$0].contains(#""event":"push""#) }
        let filler = try #require(lines.first { !$0.contains(#""event":"push""#) })
        var padded: [String] = []
        for (index, line) in lines.enumerated() {
            if pushes.dropFirst().contains(index) { padded += Array(repeating: filler, count: 20_000) }
            padded.append(line)
        }
        let long = directory + "/padded.jsonl"
        try (padded.joined(separator: "\n") + "\n").write(toFile: long, atomically: true, encoding: .utf8)
        let paddedHasty = try run(
            Self.binary,
            ["replay", "--certs", Paths.certs, long, "--scenario", scenario, "--provider", "no-backoff-on-503"])
        #expect(paddedHasty.stdout.contains("(sooner)"), "\(paddedHasty.stdout)")
        #expect(!paddedHasty.stdout.contains("(later)"), "\(paddedHasty.stdout)")
    }

    @Test("The conformance summary groups failures by their first cause: one mistake, one line")
    func failuresGroupedByFirstCause() throws {
        let result = try run(
            Self.binary, ["run", "--certs", Paths.certs, "--library", "--provider", "priority-5"],
            directory: Paths.root)
        #expect(result.status == 1)
        let grouped = result.stdout.components(separatedBy: "failures by first cause:\n").last ?? ""
        let first = grouped.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains("a VoIP push at priority 5 or 1"), "\(grouped)")
        let count = Int(first.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber }) ?? 0
        #expect(count >= 20, "most requirements fail for the one mistake: \(first)")
        // Negative control: the reference provider fails nothing, and no group is printed.
        let reference = try run(
            Self.binary, ["run", "--certs", Paths.certs, "--library", "--provider", "reference"], directory: Paths.root)
        #expect(reference.status == 0)
        #expect(!reference.stdout.contains("failures by first cause"))
    }

    @Test("The HTML report counts skipped demonstrations as skipped, and carries the conformance summary")
    func htmlCountsSkipped() throws {
        let page = NSTemporaryDirectory() + "ringside-skipped-\(UUID().uuidString).html"
        defer { try? FileManager.default.removeItem(atPath: page) }
        let result = try run(
            Self.binary,
            ["run", "--certs", Paths.certs, "--library", "--provider", "priority-5", "--report", page],
            directory: Paths.root)
        #expect(result.status == 1)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let summary = try #require(result.stdout.split(separator: "\n").last { $0.hasPrefix("requirements: ") })
        // requirements: 10 passed, 26 failed; demonstrations: 33 skipped; not applicable: …
        let numbers = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(html.contains("<button data-show=\"passed\">passed \(numbers[0])</button>"), "\(summary)")
        #expect(html.contains("<button data-show=\"skipped\">skipped"), "skipped scenarios have their own count")
        #expect(html.contains("conformance of"), "the page carries the summary")
        #expect(html.contains("failures by first cause"))
    }

    @Test("An expectation failure reads as in the golden file (holes for ids and dates)")
    func expectationFailureGolden() throws {
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--provider", "non-zero-expiration",
                "scenarios/delivery/02-expiration-zero-no-ghost.ring",
            ],
            directory: Paths.root)
        try expectMatchesGolden(result.stdout, Paths.root + "/Tests/golden/expectation-failure.out")
    }

    @Test("--format github writes an annotation at each failed expectation's line, beside the console output")
    func githubAnnotationsGolden() throws {
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--provider", "keeps-pushing-after-410", "--format", "github",
                "scenarios/tokens/04-410-forgets-token.ring",
            ],
            directory: Paths.root)
        #expect(result.status == 1)
        try expectMatchesGolden(result.stdout, Paths.root + "/Tests/golden/github-run.out")
        let passing = try run(
            Self.binary,
            ["run", "--certs", Paths.certs, "--format", "github", "scenarios/tokens/04-410-forgets-token.ring"],
            directory: Paths.root)
        #expect(passing.status == 0)
        #expect(!passing.stdout.contains("::error"), "\(passing.stdout)")
    }

    @Test("check --format github writes each problem as an annotation at its line and column")
    func githubCheckGolden() throws {
        let result = try run(
            Self.binary, ["check", "--format", "github", "Tests/golden/scenarios/typos.ring"], directory: Paths.root)
        #expect(result.status == 2)
        try expectMatchesGolden(result.stdout, Paths.root + "/Tests/golden/github-check.out")
    }

    @Test("record writes what the mock saw as a scenario that passes when run again")
    func record() throws {
        let out = NSTemporaryDirectory() + "ringside-recorded-\(UUID().uuidString).ring"
        let recorded = try run(
            "/usr/bin/env",
            [
                "RINGSIDE_BINARY=\(Self.binary)", Self.binary, "record", "--out", out, "--certs", Paths.certs, "--",
                "sh",
                Paths.root + "/Tests/providers/two_pushes.sh",
            ])
        #expect(recorded.stdout.contains("recorded 2 requests"), "\(recorded.stderr)")
        let scenario = try String(contentsOfFile: out, encoding: .utf8)
        #expect(scenario.contains("reason: BadDeviceToken"))
        let again = try run(
            "/usr/bin/env", ["RINGSIDE_BINARY=\(Self.binary)", Self.binary, "run", "--certs", Paths.certs, out])
        #expect(again.status == 0, "\(again.stdout)")
    }

    @Test("A scenario that does not check exits 2 and shows where")
    func invalidScenario() throws {
        let result = try run(
            Self.binary, ["run", "--certs", Paths.certs, Paths.root + "/Tests/golden/scenarios/typos.ring"])
        #expect(result.status == 2)
        #expect(result.stdout.contains("typos.ring:3:3"))
    }
}
