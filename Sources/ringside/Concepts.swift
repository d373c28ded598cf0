import APNs
import ScenarioLanguage

/// `ringside explain CONCEPT`: the ideas a newcomer meets before the reasons — the two tokens,
/// priority, push type, expiration, topic, voip-lint, what `expect` checks. Each page says where
/// Apple writes it and ends with a bundled scenario that shows it (`ConceptTests` runs them).
struct Concept {
    var name: String
    /// What it is, in a few short paragraphs.
    var text: String
    /// Where Apple documents it (or, for Ringside's own words, the page of docs/ that does).
    var sources: [String]
    /// Bundled scenarios that show it, relative to the library (`scenarios/`).
    var scenarios: [String]
    /// Other words of Ringside's output that lead to this page (`invalid`, `Unreadable file`).
    var aliases: [String] = []

    /// The page's first line without its name: what `explain concepts` lists.
    var summary: String {
        let first = text.prefix { $0 != "\n" }
        return first.firstRange(of: ": ").map { String(first[$0.upperBound...]) } ?? String(first)
    }

    /// The page as `ringside explain` prints it.
    var page: String {
        text + "\n\nSource: " + sources.joined(separator: "\n        ") + "\nSee it: "
            + scenarios.map { "ringside run scenarios/\($0)" }.joined(separator: "\n        ")
    }

    static let all: [Concept] = [
        pushKit, priority, pushType, expiration, topic, voipLint, expect, signsOfLife, requirement, demonstration,
        notApplicable, refusedStream, maxConcurrentStreams, doesNotCheck, couldNotRun, expectationFailed,
        nothingWasJudged, providerContract, shed, cleartext, untrustedServerCertificate, checkOrder, alpn, jwt,
        basis, conformance,
    ]

    /// The page a word names, written as Ringside's output writes it: `signs of life`,
    /// `REFUSED_STREAM` and `not applicable` find their pages (issue 46).
    static func named(_ word: String) -> Concept? {
        let name = word.lowercased().replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: "_", with: "-")
        return all.first { $0.name == name || $0.aliases.contains(name) }
    }

    static let signsOfLife = Concept(
        name: "signs-of-life",
        text: """
            signs-of-life: what makes an expectation of absence count. `count: 0`, `never-pushes` or
            `stopped: false` hold trivially for a provider that never started, never read APNS_URL or
            crashed at once, so each counts only if the provider showed signs of life in the same
            scenario: a POST to /3/device/<token> reached the mock, or its TLS handshake failed on the
            certificates (a refusal is an answer). A port probe, cleartext to the TLS port, a GET or an
            HTTP/1.1 request is no sign of life. Without one the check fails with "nothing to judge":
            make the provider push in the scenario (a `call:` before the check), or find why it never
            reached the mock (its output is quoted under the failure).
            """,
        sources: ["docs/scenario-language.md (\"When an expectation is judged\")"],
        scenarios: ["delivery/02-expiration-zero-no-ghost.ring", "connections/23-impostor-server.ring"])

    static let requirement = Concept(
        name: "requirement",
        text: """
            requirement: a bundled scenario that names no provider of its own. `ringside run
            --provider-file FILE --library` runs every requirement against your provider, and the
            conformance summary lists each as an obligation of your provider ("retries a 503 with
            back-off"), tagged [Apple rule], [practice] or [folklore] (its `basis:`). A failed
            requirement is your provider's to fix; its first cause says what the mock saw.
            """,
        sources: ["docs/scenario-language.md (the `provider` key)", "docs/ci.md"],
        scenarios: ["phone/01-a-call-rings.ring"])

    static let demonstration = Concept(
        name: "demonstration",
        text: """
            demonstration: a bundled scenario that pins its own provider (a broken built-in profile, a
            curl one-liner) to show what goes wrong. Run alone it teaches; run with --provider-file it is
            skipped (JUnit <skipped>), because it judges the provider it names, not yours.
            """,
        sources: ["docs/scenario-language.md (the `provider` key)"],
        scenarios: ["auth/44-missing-provider-token.ring"])

    static let notApplicable = Concept(
        name: "not-applicable",
        text: """
            not-applicable: a requirement that cannot judge your provider, said with why — never a
            failure, never a pass. It happens when the requirement is written for the other kind of
            authentication (token against a certificate provider), when your provider file lacks a
            template the scenario needs (no `unregister:`), or when the requirement moves the clock
            and libfaketime is missing (install Debian's `faketime`). Give what the reason names and
            the requirement runs.
            """,
        sources: ["docs/scenario-language.md (provider files)"],
        scenarios: ["auth/19-expired-provider-certificate.ring"])

    static let refusedStream = Concept(
        name: "refused-stream",
        text: """
            refused-stream: RST_STREAM with the error code REFUSED_STREAM (RFC 9113 §8.7) — the server
            did not process the request at all, so the client may send it again at once, even if it was
            not idempotent. APNs refuses streams beyond MAX_CONCURRENT_STREAMS, which is 1 on a new
            token connection until a request carries a valid JWT. A client that treats a reset as a
            failure, or waits for a timeout before sending again, loses or delays the call: send a
            refused push again at once, and start a new connection at one stream.
            """,
        sources: [
            "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns",
            "docs/apns-facts.md",
        ],
        scenarios: ["connections/24-burst-before-settings.ring"])

    static let maxConcurrentStreams = Concept(
        name: "max-concurrent-streams",
        text: """
            max-concurrent-streams: SETTINGS_MAX_CONCURRENT_STREAMS, how many requests may be open at
            once on a connection. APNs allows one on a new token connection "until you post a request
            with a valid authentication token", then raises it (Ringside's mock to 1000); after a
            rejected push it may lower it again. Streams over the limit are refused (refused-stream).
            A provider reads the server's SETTINGS before it multiplexes, and keeps one connection.
            """,
        sources: [
            "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns",
            "docs/apns-facts.md",
        ],
        scenarios: ["connections/24-burst-before-settings.ring", "connections/20-stream-limit-after-rejection.ring"])

    static let pushKit = Concept(
        name: "pushkit",
        text: """
            pushkit: an app that takes calls has two device tokens, and a call goes to one of them.
              - The PushKit (VoIP) token comes from PKPushRegistry (pushRegistry(_:didUpdate:for:) with
                type .voIP). Pushes to it use the topic <bundle>.voip and apns-push-type: voip, and iOS
                wakes the app to handle them even when it is not running.
              - The regular token comes from registerForRemoteNotifications. It takes alerts and
                background pushes to the topic <bundle>; PushKit never sees them.
            Sending the regular token with the .voip topic gets 400 DeviceTokenNotForTopic; the VoIP
            token with the bare bundle ID gets 400 TopicDisallowed. Nothing rings either way.
            In return for waking the app, iOS 13 and later require the app to report every VoIP push
            to CallKit (reportNewIncomingCall) before the push's completion handler returns: an app that
            does not is terminated, and iOS stops delivering VoIP pushes to an app that keeps failing.
            So send a VoIP push only for a call, never for a message or a missed-call badge.
            Ringside's phone plays both parts: `register: alice` hands the provider alice's VoIP token
            (`token: alert` the regular one), and `expect phone` follows the push through PushKit, the
            app and CallKit (`ringside explain rules`).
            """,
        sources: [
            "https://developer.apple.com/documentation/pushkit/responding-to-voip-notifications-from-pushkit",
            "https://developer.apple.com/documentation/pushkit/pkpushregistrydelegate/pushregistry(_:didreceiveincomingvoippushwith:metadata:withcompletionhandler:)",
            "observed answers for a wrong token or topic: https://github.com/Pr0Ger/PyAPNs2/issues/134, https://github.com/node-apn/node-apn/issues/658",
        ],
        scenarios: [
            "tokens/09-regular-token-for-voip.ring", "phone/60-regular-push-is-not-voip.ring",
            "phone/05-unreported-pushes.ring",
        ])

    static let priority = Concept(
        name: "priority",
        text: """
            priority (apns-priority): how urgently APNs delivers a push.
              10  send it now (the default when the header is absent)
               5  mind the phone's power: Apple says such pushes may be grouped, delayed or not
                  delivered at all
               1  mind the power first: never wake the phone
            Any other value gets 400 BadPriority. A call cannot wait, so a VoIP push goes at 10.
            APNs accepts 5 and 1 for a VoIP push, and that is the trap: the provider sees 200 and the
            phone may never ring. Ringside's phone misses a VoIP push at 5 or 1 (rule
            low-priority-missed) unless a scenario says `world: wrong-pushes-delivered: true`; the
            voip-lint profile refuses it outright (voip-lint/priority-not-10).
            """,
        sources: [
            "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns (the apns-priority header)"
        ],
        scenarios: ["delivery/71-low-priority-missed.ring", "requests/30-bad-priority.ring"])

    static let pushType = Concept(
        name: "push-type",
        text: """
            push-type (apns-push-type): what kind of push this is — alert, background, voip,
            complication, location, liveactivity, … It must agree with the topic's suffix: voip goes
            with <bundle>.voip. An unknown value gets 400 InvalidPushType, and a .voip topic with
            another type (many libraries default to alert) is refused too.
            Apple asks for the header on every push and says a push without it, or with one that does
            not match the payload, may be delayed or dropped. APNs still answers 200 to a VoIP push
            without it, so Ringside's phone misses such a push (rule no-push-type-missed) unless a
            scenario says `world: wrong-pushes-delivered: true`.
            """,
        sources: [
            "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns (the apns-push-type header)"
        ],
        scenarios: ["delivery/72-no-push-type-missed.ring", "requests/34-invalid-push-type.ring"])

    static let expiration = Concept(
        name: "expiration",
        text: """
            expiration (apns-expiration): until when APNs keeps trying a push it could not deliver,
            in seconds since 1970.
              0        one attempt, never stored: if the phone is offline, the push is gone
              a time   stored (one per app and phone: the latest, as Apple documents; `world:
                       keep-stored: oldest` models the other reports) and delivered when the phone
                       comes back, until that time
              absent   stored for up to 30 days
            For a call, send 0. A stored VoIP push is delivered when the phone returns — minutes or
            hours after the caller hung up — and rings a call that no longer exists: the ghost call.
            A value that is not a number gets 400 BadExpirationDate; voip-lint refuses anything but 0
            (voip-lint/expiration-not-zero).
            """,
        sources: [
            "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns (the apns-expiration header)",
            "https://developer.apple.com/documentation/pushkit/responding-to-voip-notifications-from-pushkit (send VoIP pushes with an expiration of 0 or a few seconds)",
        ],
        scenarios: [
            "delivery/02-expiration-zero-no-ghost.ring", "delivery/03-ghost-call.ring",
            "requests/31-bad-expiration-date.ring",
        ])

    static let topic = Concept(
        name: "topic",
        text: """
            topic (apns-topic): which app, and which kind of its pushes, this push is for: the bundle ID
            for alerts, <bundle>.voip for VoIP, <bundle>.complication for a watch complication.
            With token authentication the topic is required (400 MissingTopic); the key must belong to
            the app's team. With a certificate, the certificate lists the topics it may push to, and a
            topic outside that list gets 400 BadTopic. A .voip topic with a regular token gets 400
            DeviceTokenNotForTopic, a VoIP token with the bare bundle ID 400 TopicDisallowed.
            Ringside's test app is com.ringside.testapp, so a VoIP push goes to
            com.ringside.testapp.voip.
            """,
        sources: [
            "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns (the apns-topic header)",
            "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns (MissingTopic, BadTopic, TopicDisallowed, DeviceTokenNotForTopic)",
        ],
        scenarios: [
            "requests/35-missing-topic.ring", "requests/36-bad-topic.ring", "requests/37-topic-disallowed.ring",
        ])

    static var voipLint: Concept {
        Concept(
            name: "voip-lint",
            text: """
                voip-lint: a profile of the fake APNs (`serve --profile voip-lint`, `apns: profile: voip-lint`)
                that refuses what Apple accepts but a VoIP provider must never send. The default profile,
                apple, accepts what Apple accepts; voip-lint is for the CI of a calling app, where a push
                that APNs takes but that does not ring is a bug. Each refusal answers with an Apple
                reason, so that any client understands it, and names the rule:
                """ + "\n"
                    + LintRule.allCases.map {
                        "  \($0.name) (\($0.reason.status) \($0.reason.wire))\n    refuses: \($0.explanation)\n    why:     \($0.why)"
                    }.joined(separator: "\n"),
            sources: [
                "https://developer.apple.com/documentation/pushkit/responding-to-voip-notifications-from-pushkit",
                "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns",
            ],
            scenarios: ["requests/11-voip-lint.ring"])
    }

    static var expect: Concept {
        let providerChecks = ProviderExpectation.Check.allCases.map(\.option.key)
        // The checks that expect absence when their boolean is false, as their declaration says.
        var absence = ProviderExpectation(label: "")
        for case let field? in ProviderExpectation.Check.allCases.map(\.boolean) { absence[keyPath: field] = false }
        let absent = ProviderExpectation.Check.allCases.filter(absence.expectsAbsence).prefix(2).map {
            $0.option.takes == .boolean ? "\($0.option.key): false" : $0.option.key
        }
        return Concept(
            name: "expect",
            text: """
                expect: what a scenario checks, and when each check is judged.
                  expect apns: <label>       the requests the fake APNs saw (count, status, reason, phone,
                                             header), connections it refused (refused), streams it
                                             refused (refused-streams), GOAWAYs it sent (goaway)
                  expect phone: <phone>      how the latest push to the phone (or a named call) ended:
                                             outcome rang, rang-late, not-delivered, app-killed,
                                             call-refused or duplicate, with its reason and rules
                  expect provider: <label>   what the provider did about APNs's answers:
                                             \(providerChecks.prefix(3).joined(separator: ", ")),
                                             \(providerChecks.dropFirst(3).joined(separator: ", "))
                An expectation of absence (count 0, \(absent.joined(separator: ", ")), …) counts only if the provider
                pushed in the same scenario: a provider that does nothing does not pass it.
                When each check is judged is declared once, with the check:
                """ + "\n"
                    + Judging.checks.map { "  \($0.check): \($0.judging.rawValue)" }.joined(separator: "\n")
                    + "\nringside explain 'expect apns' (or 'expect phone', 'expect provider') lists every key.",
            sources: ["docs/scenario-language.md (the expectations and \"When an expectation is judged\")"],
            scenarios: ["phone/01-a-call-rings.ring", "answers/06-backoff-on-503.ring"])
    }

    static let doesNotCheck = Concept(
        name: "does-not-check",
        text: """
            does-not-check: a scenario file Ringside refused before running anything — a word it does
            not know, a value out of range, a file over 1 MiB or not UTF-8 (`Unreadable file`). Each
            error names its line and column and what was expected. `run` counts it as invalid: the
            other scenarios still run, and the exit status is 2. `ringside check FILE` shows the same
            errors without running; fix the line it names.
            """,
        sources: ["docs/scenario-language.md", "README.md (exit codes)"],
        scenarios: ["phone/01-a-call-rings.ring"],
        aliases: ["invalid", "unreadable-file"])

    static let couldNotRun = Concept(
        name: "could-not-run",
        text: """
            could-not-run: a scenario that checked but that Ringside could not run to its end: the
            provider's command could not start or its http service never answered, the certificates
            were missing, a port was busy. Nothing was judged, so it is neither a pass nor your
            provider's failure to meet the requirement; `run` counts it as broken and exits 3. The
            line after "could not run:" says what failed; the provider's own output is quoted under it.
            """,
        sources: ["docs/ci.md", "README.md (exit codes)"],
        scenarios: ["phone/01-a-call-rings.ring"],
        aliases: ["broken"])

    static let expectationFailed = Concept(
        name: "expectation-failed",
        text: """
            expectation-failed: an `expect` line whose check did not hold. The failure quotes what the
            mock or the phone saw beside what the line expected, names the push (its apns-id, token and
            line), and tells the phone's story to its outcome. `ringside explain REASON` explains the
            outcome's reason word (`low-priority`, `BadDeviceToken`); `explain expect` says when each
            check is judged. The run exits 1.
            """,
        sources: ["docs/scenario-language.md (\"When an expectation is judged\")"],
        scenarios: ["delivery/03-ghost-call.ring"])

    static let nothingWasJudged = Concept(
        name: "nothing-was-judged",
        text: """
            nothing-was-judged: every scenario selected was skipped — demonstrations (which pin their own
            provider) and requirements not applicable to your provider — so no verdict could be given,
            and `run` says so instead of passing. Give more of what the skip reasons name (a
            `register:` template, certificate authentication, Debian's `faketime`) or run the library
            with `--library` and your `--provider-file`.
            """,
        sources: ["docs/ci.md"],
        scenarios: ["auth/44-missing-provider-token.ring"])

    static let providerContract = Concept(
        name: "provider-contract",
        text: """
            provider-contract: the KEY=value lines `ringside serve` prints, and the environment every
            provider command is started with — APNS_URL, APNS_HOST, APNS_PORT, APNS_CA_FILE, APNS_TOPIC,
            APNS_VOIP_TOPIC, APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_CERT_FILE, APNS_CERT_KEY_FILE.
            A provider that reads these instead of Apple's address and trusts APNS_CA_FILE talks to the
            fake APNs with no other change; one that never reads them never reaches it (no signs of
            life).
            """,
        sources: ["docs/architecture.md (the provider contract)", "README.md (Using the fake APNs)"],
        scenarios: ["phone/01-a-call-rings.ring"],
        aliases: ["contract"])

    static let shed = Concept(
        name: "shed",
        text: """
            shed: a connection the fake APNs closed to make room: at `--max-connections`, or out of file
            descriptors, a newcomer takes the place of the oldest connection that has not authenticated
            (no request with a valid JWT or certificate yet; on the control port, no token). A
            connection that has authenticated is never shed; when all have, the newcomer is refused. A
            provider that was shed had connected and not yet sent a valid request: send the first push at once.
            """,
        sources: ["docs/validation.md (Connections)"],
        scenarios: ["connections/69-idle-timeout.ring"])

    static let cleartext = Concept(
        name: "h2c",
        text: """
            h2c: HTTP/2 without TLS ("prior knowledge", RFC 9113 §3.3). APNs never speaks it; the mock
            does only when asked (`serve --plaintext`, `transport: cleartext`), for a provider's local
            set-up. A cleartext provider cannot pass a scenario about certificates, and fails every
            other; a port probe or a cleartext request to the TLS port is no sign of life.
            """,
        sources: ["docs/validation.md"],
        scenarios: ["phone/01-a-call-rings.ring"],
        aliases: ["cleartext", "plaintext", "prior-knowledge"])

    static let untrustedServerCertificate = Concept(
        name: "untrusted-server-certificate",
        text: """
            untrusted-server-certificate: a fault that makes the fake APNs present a certificate from a
            CA nobody trusts — an impostor between your provider and Apple. A correct provider refuses
            the TLS handshake (an alert, or closing it) and pushes nothing to it; one that skips
            verification sends its JWT and the call's payload to the impostor, and fails.
            """,
        sources: ["docs/scenario-language.md (faults)"],
        scenarios: ["connections/23-impostor-server.ring"],
        aliases: ["untrusted", "impostor"])

    static let checkOrder = Concept(
        name: "check-order",
        text: """
            check-order: which of a request's checks runs first, `serve --order`. Apple documents no
            order. `auth-first` (the default, from practitioners' probes of the real APNs) checks the
            credentials before the device token: a bad JWT with a bad token is 403. `path-first`
            (pushy's MockApnsServer) checks the headers and path first: 400 BadDeviceToken. A provider
            that handles both answers does not care which.
            """,
        sources: ["docs/validation.md"],
        scenarios: ["auth/45-invalid-provider-token.ring"],
        aliases: ["auth-first", "path-first"])

    static let alpn = Concept(
        name: "alpn",
        text: """
            alpn: the TLS extension in which a client names the protocol it will speak (RFC 7301). APNs
            speaks HTTP/2, `h2`. The mock accepts a client that offers `h2` and one that offers no ALPN
            at all (aioapns and pushy speak HTTP/2 by prior knowledge); a client that offers only
            `http/1.1` is refused in the handshake, as it would get nothing useful from APNs.
            """,
        sources: ["docs/validation.md (Handshake)"],
        scenarios: ["phone/01-a-call-rings.ring"],
        aliases: ["h2"])

    static let jwt = Concept(
        name: "jwt",
        text: """
            jwt: the provider authentication token of token-based connections — a JSON Web Token signed
            with ES256 by your .p8 key, its header naming the key (`kid`), its claims your team (`iss`)
            and when it was made (`iat`), sent as `authorization: bearer …`. APNs refuses one older than
            an hour (403 ExpiredProviderToken) and one renewed more often than every 20 minutes (429
            TooManyProviderTokenUpdates): sign a new one every 20 to 60 minutes and reuse it between.
            """,
        sources: [
            "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns"
        ],
        scenarios: ["auth/07-expired-jwt.ring", "auth/49-too-many-token-updates.ring"],
        aliases: ["provider-token", "token-authentication"])

    static let basis = Concept(
        name: "basis",
        text: """
            basis: what a requirement rests on, shown as its tag. [Apple rule]: Apple's documentation
            says it. [practice]: what providers that work do, where Apple is silent (a connection that
            answers 500 to everything is replaced). [folklore]: a belief about iOS that Apple does not
            confirm, which a scenario opts in to with `apns: folklore:`. A failed [Apple rule]
            is a bug to fix first.
            """,
        sources: ["docs/scenario-language.md (the `basis` key)", "docs/apns-facts.md"],
        scenarios: ["phone/61-force-quit-folklore.ring"],
        aliases: ["apple-rule", "practice"])

    static let conformance = Concept(
        name: "conformance",
        text: """
            conformance: the summary `ringside run --provider-file FILE` ends with — each requirement
            your provider was judged on, passed, failed (with the first cause: what the mock or the
            phone saw) or not applicable (with why), and the demonstrations skipped. It exits 0 only
            when every requirement that could be judged passed.
            """,
        sources: ["docs/ci.md"],
        scenarios: ["phone/01-a-call-rings.ring"],
        aliases: ["passed", "failed", "skipped", "verdict"])
}
