import APNs
import Foundation
import ScenarioLanguage
import TestSupport
import Testing
import World

/// `ringside explain`, golden-tested (Tests/golden/explain-*.txt); every reason has its explanation.
@Suite struct ExplainTests {
    static let binary = Paths.ringside

    /// Issue 46: the words of Ringside's own output, and a scenario's file or title, all exited 64.
    @Test(
        "explain knows the words Ringside's output uses, and the library's scenarios by file or title",
        arguments: [
            ("signs of life", "POST to /3/device"), ("requirement", "conformance summary"),
            ("demonstration", "skipped"), ("not applicable", "said with why"),
            ("REFUSED_STREAM", "send it again at once"), ("MAX_CONCURRENT_STREAMS", "valid authentication token"),
            ("01-a-call-rings.ring", "requirement: your provider sends a VoIP push that rings"),
            ("phone/01-a-call-rings", "run it: ringside run"),
            ("A 410 storm gets the whole app throttled (folklore)", "tokens/70-410-storm.ring"),
            ("low-priority", "Send calls with apns-priority: 10"),
            ("delegate-returned-without-report", "reportNewIncomingCall before"),
        ])
    func outputWords(word: String, says: String) throws {
        let result = try run(Self.binary, ["explain", word])
        #expect(result.status == 0, "\(word): \(result.stderr)")
        #expect(result.stdout.contains(says), "\(word): \(result.stdout)")
    }

    /// Every reason a push may not ring says what happened and what to change, not only its kind.
    @Test("Every outcome reason has advice")
    func reasonsAdvise() {
        for kind in RingOutcome.Kind.allCases {
            for reason in kind.reasons {
                #expect((RingOutcome.Kind.advice(forReason: reason) ?? "").count > 40, "\(reason)")
            }
        }
    }

    static let goldens: [(String, [String])] = [
        ("explain-unregistered", ["explain", "Unregistered"]),
        ("explain-apns-priority", ["explain", "apns-priority"]),
        (
            "explain-curl",
            [
                "explain", "curl", "--http2", "-H", "authorization: bearer aaa.bbb.ccc", "-H",
                "apns-topic: com.ringside.testapp",
                "-H", "apns-push-type: voip", "-H", "apns-priority: 5", "--data-binary", #"{"callUUID":"x"}"#,
                "https://127.0.0.1:2197/3/device/abcd",
            ]
        ),
        (
            "explain-transcript",
            [
                "explain",
                #"{"event":"push","status":410,"reason":"Unregistered","detail":"token <abcd> is no longer active for <com.ringside.testapp.voip>","request":{":method":"POST",":path":"/3/device/abcd","apns-topic":"com.ringside.testapp.voip"}}"#,
            ]
        ),
    ]

    @Test("Output matches the golden file", arguments: goldens.indices)
    func golden(index: Int) throws {
        let (name, arguments) = Self.goldens[index]
        let expected = try String(contentsOfFile: "\(Paths.root)/Tests/golden/\(name).txt", encoding: .utf8)
        let result = try run(Self.binary, arguments)
        #expect(result.status == 0)
        #expect(result.stdout == expected, "\(name)")
    }

    @Test("Every reason of the vocabulary has an explanation and a what-to-do", arguments: Reason.allCases)
    func everyReason(reason: Reason) throws {
        let result = try run(Self.binary, ["explain", reason.wire])
        #expect(result.status == 0)
        #expect(result.stdout.contains("What it means: \(reason.explanation)"))
        #expect(result.stdout.contains("What to do:    \(reason.whatToDo)"))
    }

    @Test(
        "ringside send prints the exchange annotated (golden, <any> for ports, paths and unique ids)",
        arguments: [
            ("send-priority-5", ["--priority", "5"], Int32(0)),
            ("send-certificate", ["--auth", "certificate"], Int32(0)),
        ])
    func send(name: String, extra: [String], status: Int32) throws {
        let server = try MockServer()
        let result = try run(
            Self.binary,
            [
                "send", "--url", server.url, "--certs", Paths.certs, "--apns-id",
                "123e4567-e89b-12d3-a456-4266554400a0",
                "--payload", #"{"callUUID":"c1","handle":"alice"}"#,
            ] + extra)
        #expect(result.status == status)
        try expectMatchesGolden(result.stdout, "\(Paths.root)/Tests/golden/\(name).txt")
    }

    @Test("send --curl prints an equivalent curl command")
    func sendCurl() throws {
        let result = try run(
            Self.binary, ["send", "--curl", "--url", "https://127.0.0.1:2197", "--certs", Paths.certs])
        #expect(result.stdout.hasPrefix("curl -v --http2 --cacert"))
        #expect(result.stdout.contains("-H 'apns-push-type: voip'"))
        #expect(result.stdout.contains("$(ringside token"))
    }

    @Test("A near miss gets 'did you mean' and exit 64")
    func nearMiss() throws {
        let result = try run(Self.binary, ["explain", "BadDeviseToken"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean <BadDeviceToken>?"))
    }

    @Test("Every key, step and option of the schema has its line in Keywords")
    func everyKeywordExplained() {
        let blocks: [(String, [String])] = [
            ("top", Schema.top), ("apns", Schema.apns), ("world", Schema.world), ("phone", Schema.phone),
            ("app", Schema.app), ("provider", Schema.provider),
        ]
        for (block, keys) in blocks {
            for key in keys { #expect(Keywords.keys["\(block).\(key)"] != nil, "\(block).\(key) has no meaning") }
        }
        for (step, options) in Schema.steps {
            #expect(Keywords.steps[step] != nil, "step \(step) has no meaning")
            for option in options { #expect(Keywords.options["\(step).\(option)"] != nil, "\(step).\(option)") }
        }
        #expect(Keywords.keys.count == blocks.reduce(0) { $0 + $1.1.count }, "Keywords has a key the schema lacks")
    }

    @Test("explain answers every rule, fault action and step by name", arguments: ["rules", "faults", "keywords"])
    func explainsWords(_ list: String) throws {
        let words: [String]
        switch list {
        case "rules": words = PhoneRule.allCases.map(\.rawValue)
        case "faults": words = FaultSpec.Action.allCases.map(\.rawValue)
        default: words = Array(Schema.steps.keys)
        }
        let all = try run(Self.binary, ["explain", list])
        #expect(all.status == 0)
        for word in words {
            #expect(all.stdout.contains("  \(word): "), "\(list) lacks \(word)")
            let one = try run(Self.binary, ["explain", word])
            #expect(one.status == 0, "\(word): \(one.stderr)")
            #expect(one.stdout.contains(word), "\(word): \(one.stdout)")
        }
    }

    @Test("explain names a voip-lint rule and explains it with its own words, not its reason's")
    func explainsLintRule() throws {
        let rule = try run(Self.binary, ["explain", "voip-lint/expiration-not-zero"])
        #expect(rule.status == 0, "\(rule.stderr)")
        #expect(rule.stdout.hasPrefix("voip-lint/expiration-not-zero: answers 400 BadExpirationDate"), "\(rule.stdout)")
        #expect(rule.stdout.contains("ghost call"), "\(rule.stdout)")
        #expect(rule.stdout.contains("[PK-VOIP]"), "\(rule.stdout)")
        #expect(!rule.stdout.contains(Reason.badExpirationDate.explanation), "\(rule.stdout)")
        let short = try run(Self.binary, ["explain", "expiration-not-zero"])
        #expect(short.status == 0 && short.stdout.contains("voip-lint/expiration-not-zero: answers"), "\(short.stdout)")
        let all = try run(Self.binary, ["explain", "voip-lint"])
        #expect(all.status == 0)
        for name in ["topic-without-voip-suffix", "push-type-not-voip", "priority-not-10", "expiration-not-zero"] {
            #expect(all.stdout.contains("  voip-lint/\(name) ("), "\(name): \(all.stdout)")
        }
        let near = try run(Self.binary, ["explain", "voip-lint/expiration-not-zeor"])
        #expect(near.status == 64 && near.stderr.contains("did you mean <voip-lint/expiration-not-zero>?"))
        // A transcript line of a lint refusal is explained by its rule; without `lint`, by its reason.
        let line =
            #"{"event":"push","status":400,"reason":"BadExpirationDate","detail":"apns-expiration <1900000000>, expected <0> (or a time already past)","lint":"voip-lint/expiration-not-zero","request":{":method":"POST",":path":"/3/device/abcd","apns-topic":"com.ringside.testapp.voip","apns-expiration":"1900000000"}}"#
        let linted = try run(Self.binary, ["explain", line])
        #expect(linted.status == 0)
        #expect(linted.stdout.contains("voip-lint/expiration-not-zero: answers 400"), "\(linted.stdout)")
        #expect(!linted.stdout.contains(Reason.badExpirationDate.explanation), "\(linted.stdout)")
        let plain = try run(
            Self.binary,
            ["explain", line.replacingOccurrences(of: #""lint":"voip-lint/expiration-not-zero","#, with: "")])
        #expect(plain.stdout.contains("What it means: \(Reason.badExpirationDate.explanation)"), "\(plain.stdout)")
    }
}
