import Foundation
import TestSupport
import Testing

/// `ringside explain CONCEPT` (issue 29): the ideas behind the reasons — each page names where Apple
/// (or our language reference) says it and ends with bundled scenarios that show it.
@Suite struct ConceptTests {
    /// The concepts a newcomer asks about first; a page dropped from `Concept.all` fails here.
    static let concepts = [
        "pushkit", "priority", "push-type", "expiration", "topic", "voip-lint", "expect", "signs-of-life",
        "requirement",
        "demonstration", "not-applicable", "refused-stream", "max-concurrent-streams", "does-not-check",
        "could-not-run", "expectation-failed", "nothing-was-judged", "provider-contract", "shed", "h2c",
        "untrusted-server-certificate", "check-order", "alpn", "jwt", "basis", "conformance",
    ]

    /// Words of Ringside's own output, written as the output writes them (the adversary's, session
    /// 16: each exited 64), lead to the page that explains them.
    @Test(
        "The words of run's and serve's output are explained",
        arguments: [
            ("does not check", "does-not-check"), ("Unreadable file", "does-not-check"), ("invalid", "does-not-check"),
            ("could not run", "could-not-run"), ("broken", "could-not-run"),
            ("Expectation failed", "expectation-failed"), ("nothing was judged", "nothing-was-judged"),
            ("provider contract", "provider-contract"), ("shed", "shed"), ("h2c", "h2c"),
            ("untrusted", "untrusted-server-certificate"), ("path-first", "check-order"),
            ("auth-first", "check-order"), ("ALPN", "alpn"), ("JWT", "jwt"), ("GOAWAY", "fault goaway"),
            ("shed.", "shed"), ("skipped", "conformance"), ("practice", "basis"), ("Apple rule", "basis"),
            ("prior knowledge", "h2c"), ("h2", "alpn"), ("passed", "conformance"),
            ("BadDeviceToken:", "400 BadDeviceToken"),
            ("apns-push-type:", "apns-push-type"), ("\"rang\"", "rule rang"), ("rang…", "rule rang"),
        ])
    func outputWords(_ word: String, page: String) throws {
        let result = try run(Paths.ringside, ["explain", word])
        #expect(result.status == 0, "\(word): \(result.stderr)")
        #expect(
            result.stdout.hasPrefix(page + ":") || result.stdout.hasPrefix(page + "\n"), "\(word): \(result.stdout)")
    }

    @Test("Each concept page cites its source and ends with scenarios of the library that exist", arguments: concepts)
    func page(_ name: String) throws {
        let result = try run(Paths.ringside, ["explain", name])
        #expect(result.status == 0, "\(name): \(result.stderr)")
        #expect(result.stdout.hasPrefix("\(name)"), "\(result.stdout)")
        let source = try #require(result.stdout.components(separatedBy: "\nSource: ").dropFirst().first, "\(name)")
        #expect(source.hasPrefix("https://developer.apple.com/") || source.hasPrefix("docs/"), "\(source)")
        let seeIt = try #require(source.components(separatedBy: "\nSee it: ").dropFirst().first, "\(name)")
        let scenarios = seeIt.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .prefix { $0.hasPrefix("ringside run scenarios/") }
        #expect(!scenarios.isEmpty, "\(name): \(seeIt)")
        for command in scenarios {
            let path = Paths.root + "/" + command.dropFirst("ringside run ".count)
            #expect(FileManager.default.fileExists(atPath: path), "\(name) names \(path)")
        }
    }

    @Test("'explain concepts' lists every page")
    func list() throws {
        let result = try run(Paths.ringside, ["explain", "concepts"])
        #expect(result.status == 0)
        for name in Self.concepts { #expect(result.stdout.contains("\n  \(name): "), "\(name): \(result.stdout)") }
    }

    /// The two lessons a newcomer used to leave without (issue 29 point 6), in the words that teach them.
    @Test("The pushkit and priority pages say what goes wrong and what Ringside's phone does")
    func lessons() throws {
        let pushKit = try run(Paths.ringside, ["explain", "pushkit"]).stdout
        for words in [
            "PKPushRegistry", "registerForRemoteNotifications", "DeviceTokenNotForTopic", "reportNewIncomingCall",
        ] {
            #expect(pushKit.contains(words), "\(words)")
        }
        let priority = try run(Paths.ringside, ["explain", "priority"]).stdout
        for words in ["10  send it now", "low-priority-missed", "wrong-pushes-delivered", "400 BadPriority"] {
            #expect(priority.contains(words), "\(words)")
        }
    }

    /// The `expect` page's timing lines come from the declarations (`Judging.checks`): the two
    /// end-of-scenario checks of this turn's false greens say so.
    @Test("The expect page says when each check is judged, from the declarations")
    func expectTiming() throws {
        let page = try run(Paths.ringside, ["explain", "expect"]).stdout
        #expect(page.contains("  expect provider connections-at-most: at the scenario's end"), "\(page)")
        #expect(page.contains("  expect apns refused-streams: at the scenario's end"), "\(page)")
        #expect(page.contains("  expect phone: when it holds, and again once the provider has settled"), "\(page)")
    }
}
