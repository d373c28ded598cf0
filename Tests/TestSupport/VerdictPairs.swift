import APNs
import Foundation
import MockAPNs
import Scenario
import ScenarioLanguage
import Testing
import World

/// Every key and value of the scenario language changes a verdict: for each word, a pair of
/// scenarios that differ in it, one passing and one failing (SchemaCoverageTests runs them: in
/// memory in ScenarioTests, those that need a socket in ScenarioIntegrationTests). Words listed in
/// `exempt` say why they cannot have one.
public enum VerdictPairs {
    public struct Pair: Sendable, CustomTestStringConvertible {
        public var words: [String]
        public var passing: String
        public var failing: String
        public var testDescription: String { words.joined(separator: ", ") }
    }

    /// Every word a scenario may write: `context.key` for keys, `vocabulary=value` for values.
    public static let vocabulary: [String] = {
        var words = Schema.top.map { "top.\($0)" } + Schema.apns.map { "apns.\($0)" }
        words += Schema.world.map { "world.\($0)" } + Schema.phone.map { "phone.\($0)" }
        words += Schema.app.map { "app.\($0)" } + Schema.provider.map { "provider.\($0)" }
        for (kind, options) in Schema.steps {
            words.append("step.\(kind)")
            words += options.map { "step.\(kind).\($0)" }
        }
        words += APNsEnvironment.allCases.map { "environment=\($0.rawValue)" }
        words += ValidationSettings.Profile.allCases.map { "profile=\($0.rawValue)" }
        words += ProviderAuthentication.allCases.map { "auth=\($0.rawValue)" }
        words += TestCertificate.allCases.map { "certificate=\($0.rawValue)" }
        words += WorldSettings.Folklore.Rule.allCases.map { "folklore=\($0.rawValue)" }
        words += APNsTransport.allCases.map { "transport=\($0.rawValue)" }
        words += AppBehaviour.Name.allCases.map { "behaviour=\($0.rawValue)" }
        words += CallFramework.allCases.map { "reports-with=\($0.rawValue)" }
        words += ProviderProfile.allCases.map { "builtin=\($0.rawValue)" }
        words += TokenKind.allCases.map { "token=\($0.rawValue)" }
        words += RingOutcome.Kind.allCases.map { "outcome=\($0.rawValue)" }
        words += RingOutcome.Kind.allCases.flatMap { $0.reasons.map { "outcome-reason=\($0)" } }
        words += FaultSpec.Action.allCases.filter { $0 != .answer }.map { "fault=\($0.rawValue)" }
        words += Reason.allCases.map { "fault=\($0.wire)" }
        words += WorldSettings.StoragePolicy.allCases.map { "keep-stored=\($0.rawValue)" }
        words += PhoneRule.allCases.map { "rule=\($0.rawValue)" }
        return words
    }()

    /// Words no pair can show, and why.
    public static let exempt: [String: String] = [
        "top.scenario": "the name: reports show it (RunCommandTests)",
        "top.teaches": "a paragraph for newcomers: reports show it (RunCommandTests)",
        "top.obligation":
            "a requirement's line in the conformance summary, not its verdict: RunCommandTests' goldens show it",
        "top.basis": "the tag of the summary's line, not the verdict: RunCommandTests' goldens show it",
        "top.apns": "a block: its keys have pairs", "top.world": "a block: its keys have pairs",
        "top.phones": "a block: its keys have pairs", "top.provider": "a block: its keys have pairs",
        "top.steps": "required: there is no scenario without it", "phone.apps": "a block: its keys have pairs",
        "phone.name": "what steps refer to: ReferenceTests refuses names that point nowhere",
        "outcome-reason=callUUIDAlreadyExists": "a repeated call id ends as the outcome `duplicate`",
        "provider.auth":
            "a provider file's word, refused in a scenario: ProviderFileTests.otherAuthenticationNotApplicable shows it makes a requirement not applicable",
    ]

    // MARK: Building blocks

    public static let ringsAlice = """
        phones:
          - name: alice
        steps:
          - register: alice
          - call: alice
            from: bob
          - expect phone: alice
            outcome: rang

        """

    public static func scenario(_ body: String) -> String { "scenario: pair\n" + body }

    /// A bundled scenario's body, with the built-in reference provider named so that it can be swapped.
    /// A bundled scenario's body as it is (its own provider, if any).
    public static func bundledAsIs(_ file: String) -> String {
        bodyLines(file).joined(separator: "\n")
    }

    /// A bundled scenario's lines but its name, and but the summary's `obligation:` and `basis:`,
    /// which the library writes last: a pair adds steps at the end.
    static func bodyLines(_ file: String) -> [Substring] {
        let text = (try? String(contentsOfFile: Paths.scenario(file), encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().filter {
            !$0.hasPrefix("obligation: ") && !$0.hasPrefix("basis: ")
        }
    }

    /// For each rule an `expect phone … rules:` of the library checks: the scenario as it is (passing)
    /// and with that rule swapped for one its story cannot show (failing).
    public static func rulePairs() -> [Pair] {
        var pairs: [Pair] = []
        for relative in Paths.bundled {
            let name = (relative as NSString).lastPathComponent
            let text = bundledAsIs(name)
            for line in text.split(separator: "\n") where line.contains("rules: [") {
                let inside = line[line.range(of: "[")!.upperBound..<line.range(of: "]")!.lowerBound]
                let rules = inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                for rule in rules {
                    // A rule no story of that outcome has: an unentitled app never rings, and a push that
                    // did not ring did not ring.
                    let absent = rules.contains("rang") || text.contains("outcome: rang") ? "unentitled" : "rang"
                    let swapped = rules.map { $0 == rule ? absent : $0 }.joined(separator: ", ")
                    let failing = text.replacingOccurrences(
                        of: String(line), with: line.replacingOccurrences(of: inside, with: swapped))
                    pairs.append(
                        Pair(
                            words: ["rule=\(rule)", "step.expect phone.rules"], passing: scenario(text),
                            failing: scenario(failing)))
                }
            }
        }
        return pairs
    }

    public static func bundled(_ file: String) -> String {
        "provider:\n  builtin: reference\n" + bodyLines(file).joined(separator: "\n")
    }

    public static func curl(token: String = "{token}", extra: String = "", payload: String = "'{payload}'") -> String {
        "curl -s -o /dev/null --http2 --max-time 2 --cacert {ca} -H \"authorization: bearer {jwt}\" -H \"apns-topic: {topic}\" -H \"apns-push-type: voip\" -H \"apns-expiration: 0\"\(extra) --data-binary \(payload) {url}/3/device/\(token)"
    }

    public static let anyToken = String(repeating: "ab", count: 32)
    public static let httpProvider = """
        provider:
          http: python3 \(Paths.root)/Tests/providers/http_provider.py
          register: POST /register {"user":"{user}","token":"{token}"}
          unregister: POST /unregister {"token":"{token}"}
          call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}

        """

    /// The same scenario with `a` in the passing one and `b` in the failing one.
    public static func swap(_ words: [String], _ text: String, _ a: String, _ b: String) -> Pair {
        precondition(text.contains(a), "\(words): <\(a)> is not in the text")
        return Pair(words: words, passing: scenario(text), failing: scenario(text.replacingOccurrences(of: a, with: b)))
    }

    public static func app(_ lines: String, steps: String = "") -> String {
        """
        phones:
          - name: alice
            apps:
              - bundle: com.ringside.testapp
        \(lines.split(separator: "\n").map { "        " + $0 }.joined(separator: "\n"))
        steps:
          - register: alice
          - call: alice
            from: bob
        \(steps)
        """
    }

    public static func seedToken(_ seed: UInt64) -> String {
        let world = SharedWorld(seed: seed)
        return world.withWorld { w in
            _ = w.addPhone(name: "alice", apps: [AppSpec(bundleId: ScenarioPlan.testBundleId)], at: 0)
            return w.token(phone: 0, bundleId: ScenarioPlan.testBundleId, kind: .voip) ?? ""
        }
    }

    // MARK: The pairs

    public static let pairs: [Pair] = {
        var pairs: [Pair] = []
        let token = seedToken(1)
        pairs.append(
            swap(
                ["top.seed"],
                "seed: 1\n" + ringsAlice + "  - expect apns: x\n    header: \":path: /3/device/\(token)\"\n",
                "seed: 1\n", "seed: 2\n"))
        // apns
        let environments = """
            apns:
              environment: sandbox
            phones:
              - name: alice
                apps:
                  - bundle: com.ringside.testapp
                    environment: sandbox
            steps:
              - register: alice
              - call: alice
                from: bob
              - expect phone: alice
                outcome: rang

            """
        pairs.append(
            swap(
                ["apns.environment", "environment=sandbox", "environment=production"], environments,
                "apns:\n  environment: sandbox", "apns:\n  environment: production"))
        pairs.append(
            swap(
                ["app.environment"], environments, "    environment: sandbox", "    environment: production"))
        pairs.append(
            swap(
                ["apns.auth", "auth=token", "auth=certificate"], "apns:\n  auth: token\n" + ringsAlice,
                "auth: token", "auth: certificate\n  certificate: expired"))
        for certificate in ["novoip", "expired", "untrusted", "plain", "production-only"] {
            pairs.append(
                swap(
                    ["apns.certificate", "certificate=voip", "certificate=\(certificate)"],
                    "apns:\n  auth: certificate\n  certificate: voip\n" + ringsAlice, "certificate: voip",
                    "certificate: \(certificate)"))
        }
        pairs.append(
            swap(
                ["certificate=sandbox-only"],
                "apns:\n  environment: sandbox\n  auth: certificate\n  certificate: sandbox-only\n" + ringsAlice,
                "environment: sandbox", "environment: production"))
        pairs.append(
            swap(
                ["apns.profile", "profile=apple", "profile=voip-lint", "builtin=priority-5"],
                "apns:\n  profile: apple\nworld:\n  wrong-pushes-delivered: true\nprovider:\n  builtin: priority-5\n"
                    + ringsAlice, "profile: apple", "profile: voip-lint"))
        // APNs is TLS only: a provider that speaks cleartext HTTP/2 passes only where a scenario opts in.
        let cleartextCurl =
            "curl -s -o /dev/null --http2-prior-knowledge --max-time 2 -H \"authorization: bearer {jwt}\" -H \"apns-topic: {topic}\" -H \"apns-push-type: voip\" -H \"apns-expiration: 0\" --data-binary '{payload}' http://127.0.0.1:$APNS_PORT/3/device/{token}"
        pairs.append(
            swap(
                ["apns.transport", "transport=tls", "transport=cleartext"],
                "apns:\n  transport: cleartext\nprovider:\n  exec: \(cleartextCurl)\n" + ringsAlice,
                "transport: cleartext", "transport: tls"))
        // What Apple says may become of a VoIP push at priority 5 or without a push type: missed by default.
        pairs.append(
            swap(
                ["world.wrong-pushes-delivered", "outcome-reason=low-priority"],
                "world:\n  wrong-pushes-delivered: false\nprovider:\n  builtin: priority-5\nphones:\n  - name: alice\nsteps:\n  - register: alice\n  - call: alice\n  - expect phone: alice\n    outcome: not-delivered\n    reason: low-priority\n",
                "wrong-pushes-delivered: false", "wrong-pushes-delivered: true"))
        let untyped = curl().replacingOccurrences(of: " -H \"apns-push-type: voip\"", with: "")
        pairs.append(
            swap(
                ["outcome-reason=no-push-type"],
                "world:\n  wrong-pushes-delivered: false\nprovider:\n  exec: \(untyped)\nphones:\n  - name: alice\nsteps:\n  - register: alice\n  - call: alice\n  - expect phone: alice\n    outcome: not-delivered\n    reason: no-push-type\n",
                "wrong-pushes-delivered: false", "wrong-pushes-delivered: true"))
        pairs.append(
            swap(
                ["apns.folklore", "folklore=dead-token-penalty"],
                """
                apns:
                  folklore: []
                provider:
                  builtin: keeps-pushing-after-410
                phones:
                  - name: alice
                  - name: bob
                steps:
                  - register: alice
                  - register: bob
                  - uninstall: alice
                  - call: alice
                  - call: alice
                  - call: alice
                  - call: bob
                    from: carol
                  - expect phone: bob
                    outcome: rang

                """, "folklore: []", "folklore: [dead-token-penalty]"))
        let eleven = String(repeating: "  - call: alice\n    from: bob\n", count: 11)
        pairs.append(
            swap(
                ["folklore=daily-voip-budget"],
                "apns:\n  folklore: []\nphones:\n  - name: alice\nsteps:\n  - register: alice\n" + eleven
                    + "  - expect phone: alice\n    outcome: rang\n", "folklore: []", "folklore: [daily-voip-budget]"))
        let forceQuit = """
            apns:
              folklore: [force-quit-blocks-voip]
            phones:
              - name: alice
                apps:
                  - bundle: com.ringside.testapp
                  - bundle: com.example.other
            steps:
              - register: alice
              - force-quit: alice
                app: com.example.other
              - call: alice
                from: bob
              - expect phone: alice
                outcome: rang

            """
        pairs.append(
            swap(
                ["folklore=force-quit-blocks-voip", "step.force-quit", "step.force-quit.app"], forceQuit,
                "app: com.example.other", "app: com.ringside.testapp"))
        pairs.append(
            swap(
                ["step.relaunch", "step.relaunch.app"],
                forceQuit.replacingOccurrences(of: "app: com.example.other", with: "app: com.ringside.testapp")
                    .replacingOccurrences(
                        of: "  - call: alice",
                        with: "  - relaunch: alice\n    app: com.ringside.testapp\n  - call: alice"),
                "    app: com.ringside.testapp\n  - call", "    app: com.example.other\n  - call"))
        // world
        let reinstall = """
            world:
              unregister-delay: 1h
            phones:
              - name: alice
            steps:
              - register: alice
              - reinstall: alice
              - call: alice
              - expect apns: the old token still answers 200
                status: 200
                count: 1

            """
        pairs.append(swap(["world.unregister-delay"], reinstall, "unregister-delay: 1h", "unregister-delay: 0s"))
        pairs.append(
            swap(
                ["world.unreported-limit", "outcome-reason=app-blocked"],
                "world:\n  unreported-limit: 1\n"
                    + app(
                        "behaviour: never-reports",
                        steps:
                            "  - call: alice\n  - expect phone: alice\n    outcome: not-delivered\n    reason: app-blocked\n"
                    ),
                "unreported-limit: 1", "unreported-limit: 3"))
        let ghost = """
            world:
              ring-timeout: 30s
            provider:
              builtin: non-zero-expiration
            phones:
              - name: alice
                online: false
            steps:
              - register: alice
              - call: alice
                from: bob
              - advance: 2m
              - online: alice
              - expect phone: alice
                outcome: rang-late

            """
        pairs.append(
            swap(
                ["world.ring-timeout", "outcome=rang-late", "builtin=non-zero-expiration"], ghost, "ring-timeout: 30s",
                "ring-timeout: 1h"))
        pairs.append(swap(["step.advance"], ghost, "  - advance: 2m\n", ""))
        pairs.append(swap(["step.online"], ghost, "  - online: alice\n", ""))
        pairs.append(swap(["phone.online"], ghost, "online: false", "online: true"))
        pairs.append(
            swap(["world.delivery-latency"], "world:\n  delivery-latency: 0s\n" + ringsAlice, "0s", "1h"))
        pairs.append(
            swap(
                ["world.throttle"],
                "world:\n  throttle: 1 per 60s\n" + ringsAlice
                    + "  - call: alice\n  - expect apns: throttled\n    status: 429\n",
                "1 per 60s", "off"))
        pairs.append(
            swap(
                ["world.accept-unknown-tokens"],
                "world:\n  accept-unknown-tokens: true\nsteps:\n  - exec: \(curl(token: anyToken, payload: "'{}'"))\n  - expect apns: accepted\n    status: 200\n    count: 1\n",
                "accept-unknown-tokens: true", "accept-unknown-tokens: false"))
        // phones and apps
        pairs.append(
            swap(["app.bundle"], app(""), "com.ringside.testapp", "com.example.other").withSteps(
                "  - expect phone: alice\n    outcome: rang\n"))
        pairs.append(
            swap(
                [
                    "app.ios", "app.behaviour", "behaviour=never-reports", "outcome=app-killed",
                    "outcome-reason=delegate-returned-without-report",
                ],
                app(
                    "ios: \"18\"\nbehaviour: never-reports",
                    steps:
                        "  - expect phone: alice\n    outcome: app-killed\n    reason: delegate-returned-without-report\n"
                ),
                "ios: \"18\"", "ios: \"12\""))
        for behaviour in ["reports-at-once", "completes-before-reporting", "reports-only-well-formed"] {
            pairs.append(
                swap(
                    ["behaviour=\(behaviour)"],
                    app("behaviour: \(behaviour)", steps: "  - expect phone: alice\n    outcome: rang\n"),
                    "behaviour: \(behaviour)", "behaviour: never-reports"))
        }
        pairs.append(
            swap(
                ["step.call.from"],
                app("behaviour: reports-only-well-formed", steps: "  - expect phone: alice\n    outcome: rang\n"),
                "    from: bob\n", ""))
        let roundTrip = app(
            "behaviour: reports-after-round-trip\nround-trip: 1s\nblocking: true",
            steps: "  - advance: 20s\n  - expect phone: alice\n    outcome: rang\n")
        pairs.append(
            swap(
                ["behaviour=reports-after-round-trip", "app.round-trip", "outcome-reason=callservicesd-0xbaadca11"],
                roundTrip, "round-trip: 1s", "round-trip: 10s"))
        pairs.append(swap(["app.blocking"], roundTrip, "blocking: true", "blocking: false"))
        pairs.append(
            swap(
                ["app.entitled", "outcome=call-refused", "outcome-reason=unentitled"],
                app(
                    "entitled: false",
                    steps: "  - expect phone: alice\n    outcome: call-refused\n    reason: unentitled\n"),
                "entitled: false", "entitled: true"))
        // provider
        pairs.append(
            swap(
                ["provider.builtin", "builtin=reference", "builtin=forgets-voip-suffix"],
                "provider:\n  builtin: reference\n" + ringsAlice, "builtin: reference", "builtin: forgets-voip-suffix"))
        for profile in ["uses-regular-token", "cancels-with-push"] {
            pairs.append(
                swap(
                    ["builtin=\(profile)"], "provider:\n  builtin: reference\n" + ringsAlice, "builtin: reference",
                    "builtin: \(profile)"))
        }
        let after410 = """
            provider:
              builtin: reference
            phones:
              - name: alice
              - name: bob
            steps:
              - register: alice
              - register: bob
              - uninstall: alice
              - call: alice
              - call: alice
              - expect provider: tokens
                never-pushes: alice

            """
        pairs.append(
            swap(
                ["builtin=keeps-pushing-after-410", "step.uninstall"], after410, "builtin: reference",
                "builtin: keeps-pushing-after-410"))
        pairs.append(
            swap(
                ["step.expect provider.never-pushes"],
                after410.replacingOccurrences(of: "builtin: reference", with: "builtin: keeps-pushing-after-410"),
                "never-pushes: alice", "never-pushes: bob"
            ).flipped())
        pairs.append(
            swap(
                ["step.expect provider"],
                after410.replacingOccurrences(of: "builtin: reference", with: "builtin: keeps-pushing-after-410"),
                "  - expect provider: tokens\n    never-pushes: alice\n", ""
            ).flipped())
        pairs.append(
            swap(
                ["builtin=prunes-only-on-410"],
                """
                apns:
                  environment: production
                provider:
                  builtin: reference
                phones:
                  - name: alice
                    apps:
                      - bundle: com.ringside.testapp
                        environment: sandbox
                steps:
                  - register: alice
                  - call: alice
                  - call: alice
                  - expect provider: tokens
                    never-pushes: alice

                """, "builtin: reference", "builtin: prunes-only-on-410"))
        let backOff = """
            provider:
              builtin: reference
            phones:
              - name: alice
            steps:
              - register: alice
              - fault: ServiceUnavailable
                count: 2
              - call: alice
              - expect provider: back-off
                retried: 2

            """
        pairs.append(swap(["builtin=no-backoff-on-503"], backOff, "builtin: reference", "builtin: no-backoff-on-503"))
        // The connection policy's rows, each with the naive profile that gets it wrong.
        let permanent = bundled("21-permanent-goaway.ring")
        pairs.append(swap(["builtin=reconnect-storm"], permanent, "builtin: reference", "builtin: reconnect-storm"))
        pairs.append(
            swap(
                ["step.expect provider.connections-at-most"], permanent, "connections-at-most: 1",
                "connections-at-most: 0"))
        pairs.append(
            swap(["step.expect provider.stopped"], permanent, "stopped: BadCertificateEnvironment", "stopped: false"))
        pairs.append(
            swap(
                ["builtin=sticks-to-sick-connection"], bundled("22-sick-connection.ring"), "builtin: reference",
                "builtin: sticks-to-sick-connection"))
        pairs.append(
            swap(
                ["builtin=skips-server-verification"], bundled("23-impostor-server.ring"), "builtin: reference",
                "builtin: skips-server-verification"))
        // Streams sent before the lowered limit arrives are refused; a provider that signs a new JWT
        // for each request sends them again with one, and APNs refuses the update (429).
        pairs.append(
            swap(
                ["fault=lower-streams-after-rejection"],
                bundled("20-stream-limit-after-rejection.ring").replacingOccurrences(
                    of: "builtin: reference", with: "builtin: new-jwt-per-request"),
                "  - fault: lower-streams-after-rejection\n", ""
            ).flipped())
        let burst = bundled("24-burst-before-settings.ring")
        pairs.append(
            swap(["builtin=drops-refused-streams"], burst, "builtin: reference", "builtin: drops-refused-streams"))
        // A careful client starts a new connection at one stream: none of its burst is refused.
        pairs.append(
            swap(
                ["step.expect apns.refused-streams"], burst + "  - expect apns: none refused\n    refused-streams: 0\n",
                "refused-streams: 0", "refused-streams: 1"))
        pairs.append(swap(["step.expect provider.retried"], backOff, "retried: 2", "retried: 3"))
        pairs += loadPairs()
        // `retried: 0` owes no retry, but one sent at once to a throttled token fails (scenario 16).
        let throttled = bundled("16-per-token-throttling.ring")
        pairs.append(
            swap(
                ["step.expect provider.retried"], throttled, "builtin: reference", "builtin: no-backoff-on-503"))
        pairs.append(
            swap(["step.fault.count"], backOff, "count: 2", "count: 1").withSteps(
                "  - expect apns: refused twice\n    status: 503\n    count: 2\n"))
        pairs.append(
            swap(
                ["builtin=registers-twice"],
                "provider:\n  builtin: reference\nphones:\n  - name: alice\nsteps:\n  - register: alice\n  - register: alice\n  - call: alice\n  - expect apns: one push\n    count: 1\n",
                "builtin: reference", "builtin: registers-twice"))
        pairs.append(
            swap(
                ["builtin=new-jwt-per-request"],
                "provider:\n  builtin: reference\nphones:\n  - name: alice\nsteps:\n  - register: alice\n  - call: alice\n  - call: alice\n  - expect apns: both accepted\n    status: 200\n    count: 2\n",
                "builtin: reference", "builtin: new-jwt-per-request"))
        let goAway = """
            provider:
              builtin: reference
            phones:
              - name: alice
              - name: bob
              - name: carol
            steps:
              - register: alice
                as: team
              - register: bob
                as: team
              - register: carol
                as: team
              - fault: goaway
                after-accepted: 1
              - call: team
              - expect phone: carol
                outcome: rang
              - expect provider: connections
                reconnected: true

            """
        pairs.append(swap(["builtin=ignores-goaway"], goAway, "builtin: reference", "builtin: ignores-goaway"))
        pairs.append(swap(["fault=goaway", "step.fault"], goAway, "  - fault: goaway\n    after-accepted: 1\n", ""))
        pairs.append(swap(["step.fault.after-accepted"], goAway, "after-accepted: 1", "after-accepted: 9"))
        pairs.append(
            swap(["step.expect provider.reconnected"], goAway, "reconnected: true", "reconnected: false"))
        pairs.append(
            swap(
                ["step.expect provider.refreshed-jwt", "fault=ExpiredProviderToken"],
                "phones:\n  - name: alice\nsteps:\n  - register: alice\n  - fault: ExpiredProviderToken\n  - call: alice\n  - expect provider: jwt\n    refreshed-jwt: true\n",
                "refreshed-jwt: true", "refreshed-jwt: false"))
        pairs.append(
            swap(
                ["provider.exec"], "provider:\n  exec: \(curl())\n" + ringsAlice, "  exec: \(curl())", "  exec: true"))
        pairs.append(
            swap(["provider.http"], httpProvider + ringsAlice, httpProvider, "provider:\n  exec: true\n"))
        pairs.append(
            swap(
                ["provider.ready"],
                httpProvider.replacingOccurrences(
                    of: "\n  register:", with: "\n  ready: http://127.0.0.1:{port}/health\n  register:") + ringsAlice,
                "{port}/health", "{port}/nope"))
        pairs.append(swap(["provider.register"], httpProvider + ringsAlice, "POST /register", "POST /nope"))
        // The framework the app reports to: LiveCommunicationKit is not on iOS 17.0 (killed), CallKit is.
        pairs.append(
            swap(
                ["app.reports-with", "reports-with=callkit", "reports-with=livecommunicationkit"],
                app(
                    "ios: \"17.0\"\nreports-with: callkit", steps: "  - expect phone: alice\n    outcome: rang\n"),
                "reports-with: callkit", "reports-with: livecommunicationkit"))
        // A service that answers what its authors chose: a call to a user without devices 404, a
        // token registered twice 409, an unknown token's logout 404 — correct, once declared.
        func answering(_ flag: String, _ key: String, _ answers: String) -> String {
            httpProvider.replacingOccurrences(
                of: "http_provider.py\n", with: "http_provider.py \(flag)\n  \(key): \(answers)\n")
        }
        let twoPhones =
            "phones:\n  - name: alice\n  - name: carol\nsteps:\n  - register: carol\n"
        pairs.append(
            swap(
                ["provider.call-answers"],
                answering("--answers-404-without-devices", "call-answers", "[2xx, 404]") + twoPhones
                    + "  - register: alice\n  - unregister: alice\n  - call: alice\n  - call: carol\n"
                    + "  - expect phone: carol\n    outcome: rang\n",
                "[2xx, 404]", "[2xx]"))
        pairs.append(
            swap(
                ["provider.register-answers"],
                answering("--answers-409-when-known", "register-answers", "[2xx, 409]") + twoPhones
                    + "  - register: carol\n  - call: carol\n  - expect phone: carol\n    outcome: rang\n",
                "[2xx, 409]", "[201]"))
        pairs.append(
            swap(
                ["provider.unregister-answers"],
                answering("--answers-404-when-unknown", "unregister-answers", "[2xx, 404]") + twoPhones
                    // The reinstalled app's new token was never handed over: its logout is of an unknown token.
                    + "  - register: alice\n  - reinstall: alice\n  - unregister: alice\n  - call: carol\n"
                    + "  - expect phone: carol\n    outcome: rang\n",
                "[2xx, 404]", "[2xx]"))
        // A team's app that reads the call where its payload carries it: {"data":{"call":{…}}}.
        let nested = httpProvider.replacingOccurrences(
            of: "http_provider.py\n",
            with: "http_provider.py --nested-payload\n  call-id-at: data.call.id\n  caller-at: data.call.from\n")
        pairs.append(swap(["provider.call-id-at"], nested + ringsAlice, "data.call.id", "callUUID"))
        let blocked =
            "phones:\n  - name: alice\nsteps:\n  - register: alice\n  - block: alice\n    caller: mallory\n  - call: alice\n    from: mallory\n  - expect phone: alice\n    outcome: call-refused\n    reason: filteredByBlockList\n"
        pairs.append(swap(["provider.caller-at"], nested + blocked, "data.call.from", "data.call.caller"))
        // A service whose worker pushes 1 s after the request: its count holds only when the
        // runner waits for it to settle.
        let queued = httpProvider.replacingOccurrences(
            of: "http_provider.py\n", with: "http_provider.py --queue-delay=1\n  settles-within: 3s\n")
        pairs.append(
            swap(
                ["provider.settles-within"],
                queued
                    + "phones:\n  - name: alice\nsteps:\n  - register: alice\n  - call: alice\n  - expect apns: one push\n    count: 1\n    status: 200\n",
                "settles-within: 3s", "settles-within: 0s"))
        pairs.append(swap(["provider.call"], httpProvider + ringsAlice, "POST /call", "POST /nope"))
        let unregister =
            "phones:\n  - name: alice\n  - name: carol\nsteps:\n  - register: alice\n  - register: carol\n  - unregister: alice\n  - call: alice\n  - call: carol\n  - expect apns: nothing to alice\n    phone: alice\n    count: 0\n"
        pairs.append(swap(["provider.unregister"], httpProvider + unregister, "POST /unregister", "POST /nope"))
        pairs.append(swap(["step.unregister"], unregister, "  - unregister: alice\n", ""))
        // steps
        pairs.append(
            swap(
                ["step.register"],
                ringsAlice.replacingOccurrences(of: "  - name: alice\n", with: "  - name: alice\n  - name: bob\n"),
                "  - register: alice\n", "  - register: bob\n    as: alice\n"))
        pairs.append(
            swap(
                ["step.exec"],
                "world:\n  accept-unknown-tokens: true\nsteps:\n  - exec: \(curl(token: anyToken, payload: "'{}'"))\n  - expect apns: accepted\n    count: 1\n",
                "  - exec: \(curl(token: anyToken, payload: "'{}'"))\n", "  - advance: 1s\n"))
        pairs.append(
            swap(
                ["step.register.token", "token=voip", "token=alert"], ringsAlice, "  - register: alice\n",
                "  - register: alice\n    token: alert\n"
            ).prefixed(
                ringsAlice.replacingOccurrences(
                    of: "  - register: alice\n", with: "  - register: alice\n    token: voip\n")))
        pairs.append(
            swap(
                ["step.register.as", "step.call"],
                "phones:\n  - name: alice\n  - name: bob\nsteps:\n  - register: alice\n    as: team\n  - register: bob\n    as: team\n  - call: team\n  - expect phone: bob\n    outcome: rang\n",
                "  - register: bob\n    as: team", "  - register: bob\n    as: other"))
        let twoApps = """
            phones:
              - name: alice
                apps:
                  - bundle: com.ringside.testapp
                  - bundle: com.example.other
            steps:
              - register: alice
                app: com.ringside.testapp
              - STEP
              - call: alice
              - expect phone: alice
                outcome: rang

            """
        pairs.append(
            swap(
                ["step.register.app"], twoApps.replacingOccurrences(of: "  - STEP\n", with: ""),
                "app: com.ringside.testapp", "app: com.example.other"))
        for step in ["unregister", "reinstall", "uninstall", "rotate-token"] {
            pairs.append(
                swap(
                    ["step.\(step).app"] + (step == "unregister" ? [] : ["step.\(step)"]),
                    twoApps.replacingOccurrences(
                        of: "  - STEP",
                        with: (step == "unregister" ? "  - register: alice\n    app: com.example.other\n" : "")
                            + "  - \(step): alice\n    app: com.example.other"),
                    "    app: com.example.other\n  - call", "    app: com.ringside.testapp\n  - call"))
        }
        pairs.append(
            swap(
                ["step.offline", "outcome=not-delivered", "outcome-reason=offline-not-stored"],
                ringsAlice.replacingOccurrences(
                    of: "outcome: rang", with: "outcome: not-delivered\n    reason: offline-not-stored"),
                "  - call: alice", "  - offline: alice\n  - call: alice"
            ).flipped())
        pairs.append(
            swap(
                ["step.wait"],
                "world:\n  accept-unknown-tokens: true\nsteps:\n  - exec: (sleep 1.5; \(curl(token: anyToken, payload: "'{}'"))) >/dev/null 2>&1 &\n  - wait: 4s\n  - expect apns: accepted\n    count: 1\n",
                "  - wait: 4s\n", ""))
        pairs.append(
            swap(
                ["step.expect apns.within"],
                "world:\n  accept-unknown-tokens: true\nsteps:\n  - exec: (sleep 1.5; \(curl(token: anyToken, payload: "'{}'"))) >/dev/null 2>&1 &\n  - expect apns: accepted\n    count: 1\n    within: 6s\n",
                "    within: 6s\n", ""))
        pairs.append(
            swap(
                ["step.expect provider.within"],
                "world:\n  accept-unknown-tokens: true\nsteps:\n  - exec: (sleep 1.5; \(curl(token: anyToken, payload: "'{}'")); \(curl(token: anyToken, payload: "'{}'"))) >/dev/null 2>&1 &\n  - expect provider: connections\n    reconnected: true\n    within: 6s\n",
                "    within: 6s\n", ""))
        // faults
        for reason in Reason.allCases where reason != .expiredProviderToken {
            pairs.append(
                swap(
                    ["fault=\(reason.wire)"],
                    "phones:\n  - name: alice\nsteps:\n  - register: alice\n  - fault: \(reason.wire)\n  - call: alice\n  - expect apns: refused\n    reason: \(reason.wire)\n    count: 1\n",
                    "  - fault: \(reason.wire)\n", ""))
        }
        let direct =
            "phones:\n  - name: alice\nprovider:\n  exec: \(curl())\nsteps:\n  - register: alice\n  - FAULT\n  - call: alice\n  - expect apns: answered\n    count: 1\n"
        pairs.append(
            swap(
                ["fault=drop"], direct.replacingOccurrences(of: "FAULT", with: "fault: drop\n    count: 0"),
                "  - fault: drop\n    count: 0\n", "  - fault: drop\n"
            ).prefixed(direct.replacingOccurrences(of: "  - FAULT\n", with: "")))
        pairs.append(
            swap(
                ["fault=delay", "step.fault.seconds"],
                direct.replacingOccurrences(of: "FAULT", with: "fault: delay\n    seconds: 0s"),
                "seconds: 0s", "seconds: 5s"))
        pairs.append(
            swap(
                ["fault=stale-connections"],
                "phones:\n  - name: alice\nsteps:\n  - register: alice\n  - fault: stale-connections\n    seconds: 1s\n  - call: alice\n  - advance: 10s\n  - call: alice\n  - expect apns: stale\n    status: 500\n",
                "  - fault: stale-connections\n    seconds: 1s\n", ""))
        pairs.append(
            swap(
                ["fault=untrusted-server-certificate"],
                ringsAlice,
                "  - register: alice\n", "  - register: alice\n  - fault: untrusted-server-certificate\n"))
        // SETTINGS held 3 s: the first push is answered after them, and a caller who waits 2 s has gone.
        pairs.append(
            swap(
                ["fault=hold-settings"],
                "world:\n  ring-timeout: 2s\n" + ringsAlice,
                "  - register: alice\n", "  - fault: hold-settings\n    seconds: 3s\n  - register: alice\n"))
        pairs.append(
            swap(
                ["step.fault.phone"],
                "phones:\n  - name: alice\n  - name: bob\nsteps:\n  - register: alice\n  - register: bob\n  - fault: ServiceUnavailable\n    phone: bob\n  - call: alice\n  - expect apns: none refused\n    status: 503\n    count: 0\n",
                "phone: bob", "phone: alice"))
        // expect apns
        let apns = ringsAlice + "  - expect apns: x\n    count: 1\n    status: 200\n    phone: alice\n"
        pairs.append(swap(["step.expect apns", "step.expect apns.count"], apns, "count: 1", "count: 2"))
        pairs.append(swap(["step.expect apns.status"], apns, "status: 200", "status: 410"))
        pairs.append(
            swap(
                ["step.expect apns.phone"],
                "phones:\n  - name: alice\n  - name: bob\nsteps:\n  - register: alice\n  - call: alice\n  - expect apns: x\n    phone: alice\n",
                "phone: alice", "phone: bob"))
        pairs.append(
            swap(
                ["step.expect apns.reason"],
                "phones:\n  - name: alice\nsteps:\n  - register: alice\n  - uninstall: alice\n  - call: alice\n  - expect apns: x\n    reason: Unregistered\n",
                "reason: Unregistered", "reason: BadDeviceToken"))
        pairs.append(
            swap(
                ["step.expect apns.header"],
                "phones:\n  - name: alice\nprovider:\n  exec: \(curl(extra: " -H \"x-ringside-test: yes\""))\nsteps:\n  - register: alice\n  - call: alice\n  - expect apns: x\n    header: \"X-Ringside-Test: yes\"\n",
                "X-Ringside-Test: yes\"", "X-Ringside-Test: no\""))
        pairs.append(
            swap(
                ["step.expect apns.refused"],
                "apns:\n  auth: certificate\n  certificate: expired\n"
                    + ringsAlice.replacingOccurrences(
                        of: "  - expect phone: alice\n    outcome: rang\n",
                        with: "  - expect apns: x\n    refused: certificate has expired\n"),
                "certificate has expired", "certificate is not yet valid"))
        // expect phone
        pairs.append(
            swap(
                ["step.expect phone", "step.expect phone.outcome", "outcome=rang"], ringsAlice, "outcome: rang",
                "outcome: app-killed"))
        pairs.append(
            swap(
                ["step.expect phone.reason"],
                app(
                    "behaviour: never-reports",
                    steps:
                        "  - expect phone: alice\n    outcome: app-killed\n    reason: delegate-returned-without-report\n"
                ),
                "reason: delegate-returned-without-report", "reason: callservicesd-0xbaadca11"))
        pairs.append(
            swap(
                ["step.expect phone.within"],
                app(
                    "behaviour: reports-after-round-trip\nround-trip: 3s\nblocking: true",
                    steps: "  - expect phone: alice\n    outcome: rang\n    within: 8s\n"),
                "    within: 8s\n", ""))
        pairs.append(
            swap(
                ["step.expect phone.call", "step.call.as"],
                "phones:\n  - name: alice\nsteps:\n  - register: alice\n  - call: alice\n    from: bob\n    as: first\n  - advance: 1s\n  - uninstall: alice\n  - call: alice\n    from: bob\n    as: second\n  - expect phone: alice\n    outcome: rang\n    call: first\n",
                "call: first", "call: second"))
        pairs.append(
            swap(
                ["outcome=duplicate"],
                "phones:\n  - name: alice\nprovider:\n  builtin: registers-twice\nsteps:\n  - register: alice\n  - register: alice\n  - call: alice\n    from: bob\n  - expect phone: alice\n    outcome: duplicate\n",
                "builtin: registers-twice", "builtin: reference"))
        // outcome reasons of not-delivered
        pairs.append(
            swap(
                ["outcome-reason=expired"],
                "provider:\n  builtin: non-zero-expiration\nphones:\n  - name: alice\n    online: false\nsteps:\n  - register: alice\n  - call: alice\n  - advance: 2d\n  - online: alice\n  - expect phone: alice\n    outcome: not-delivered\n    reason: expired\n",
                "advance: 2d", "advance: 1m"))
        pairs.append(
            swap(
                ["outcome-reason=replaced-while-stored"],
                "provider:\n  builtin: non-zero-expiration\nphones:\n  - name: alice\n    online: false\nsteps:\n  - register: alice\n  - call: alice\n    as: first\n  - call: alice\n  - online: alice\n  - expect phone: alice\n    outcome: not-delivered\n    reason: replaced-while-stored\n    call: first\n",
                "  - call: alice\n  - online", "  - online"))
        pairs.append(
            swap(
                ["outcome-reason=token-dead"],
                "world:\n  unregister-delay: 1h\nphones:\n  - name: alice\nsteps:\n  - register: alice\n  - reinstall: alice\n  - call: alice\n  - expect phone: alice\n    outcome: not-delivered\n    reason: token-dead\n",
                "  - reinstall: alice\n", ""))
        pairs.append(
            swap(
                ["outcome-reason=app-not-installed"],
                "phones:\n  - name: alice\nsteps:\n  - register: alice\n  - call: alice\n  - uninstall: alice\n  - expect phone: alice\n    outcome: not-delivered\n    reason: app-not-installed\n",
                "  - uninstall: alice\n", ""))
        let regular = curl().replacingOccurrences(of: "{topic}", with: ScenarioPlan.testBundleId)
            .replacingOccurrences(of: "apns-push-type: voip", with: "apns-push-type: alert")
        pairs.append(
            swap(
                ["outcome-reason=not-a-voip-push"],
                "provider:\n  exec: \(regular)\nphones:\n  - name: alice\nsteps:\n  - register: alice\n    token: alert\n  - call: alice\n  - expect phone: alice\n    outcome: not-delivered\n    reason: not-a-voip-push\n",
                "token: alert", "token: voip"))
        pairs.append(
            swap(
                ["outcome-reason=not-reported-allowed"],
                "world:\n  delivery-latency: 40s\n"
                    + app(
                        "ios: \"26.4\"\nbehaviour: never-reports",
                        steps:
                            "  - advance: 1m\n  - expect phone: alice\n    outcome: not-delivered\n    reason: not-reported-allowed\n"
                    ),
                "delivery-latency: 40s", "delivery-latency: 0s"))
        pairs.append(
            swap(
                ["outcome-reason=force-quit"],
                forceQuit.replacingOccurrences(of: "app: com.example.other", with: "app: com.ringside.testapp")
                    .replacingOccurrences(of: "outcome: rang", with: "outcome: not-delivered\n    reason: force-quit"),
                "  - force-quit: alice\n    app: com.ringside.testapp\n", ""))
        pairs.append(
            swap(
                ["outcome-reason=daily-budget"],
                "apns:\n  folklore: [daily-voip-budget]\nphones:\n  - name: alice\nsteps:\n  - register: alice\n"
                    + eleven
                    + "  - expect phone: alice\n    outcome: not-delivered\n    reason: daily-budget\n",
                "  - call: alice\n    from: bob\n  - expect", "  - expect"))
        // The phone's state: Focus, blocked callers, a call in progress, the app in the foreground.
        let focus = bundledAsIs("57-focus-and-blocked-callers.ring")
        pairs.append(
            swap(
                ["step.do-not-disturb", "outcome-reason=filteredByDoNotDisturb", "rule=do-not-disturb"], focus,
                "  - do-not-disturb: alice\n    allow: [erin]\n", ""))
        pairs.append(swap(["step.do-not-disturb.allow"], focus, "allow: [erin]", "allow: [zed]"))
        pairs.append(swap(["step.do-not-disturb.on"], focus, "    on: false\n", ""))
        pairs.append(
            swap(
                ["step.block", "outcome-reason=filteredByBlockList", "rule=blocked-caller"], focus,
                "  - block: bob\n    caller: mallory\n", ""))
        pairs.append(swap(["step.block.caller"], focus, "caller: mallory", "caller: zed"))
        let noReport = bundledAsIs("53-no-report-required.ring")
        pairs.append(swap(["step.foreground"], noReport, "  - foreground: alice", "  - online: alice"))
        pairs.append(swap(["step.on-call"], noReport, "  - on-call: bob ", "  - online: bob "))
        pairs.append(swap(["step.background"], noReport, "  - background: alice\n", ""))
        pairs.append(
            swap(
                ["step.on-call.on"],
                app(
                    "ios: \"26.4\"\nbehaviour: never-reports",
                    steps: "  - expect phone: alice\n    outcome: app-killed\n"
                ).replacingOccurrences(
                    of: "  - register: alice\n",
                    with: "  - register: alice\n  - on-call: alice\n  - on-call: alice\n    on: false\n"),
                "    on: false\n", "    on: true\n"))
        // The app in the foreground is the one that need not report; another app's foreground is not.
        let foregroundApps = """
            phones:
              - name: alice
                apps:
                  - bundle: com.ringside.testapp
                    ios: "26.4"
                    behaviour: never-reports
                  - bundle: com.example.other
            steps:
              - register: alice
              - foreground: alice
                app: com.ringside.testapp
              - call: alice
                from: bob
              - expect phone: alice
                outcome: not-delivered

            """
        pairs.append(
            swap(["step.foreground.app"], foregroundApps, "app: com.ringside.testapp", "app: com.example.other"))
        pairs.append(
            swap(
                ["step.background.app"],
                foregroundApps.replacingOccurrences(
                    of: "  - call: alice", with: "  - background: alice\n    app: com.example.other\n  - call: alice"),
                "app: com.example.other\n  - call", "app: com.ringside.testapp\n  - call"))
        // Which stored push APNs keeps.
        let oldest = bundledAsIs("64-keep-oldest.ring")
        pairs.append(
            swap(["world.keep-stored", "keep-stored=oldest"], oldest, "keep-stored: oldest", "keep-stored: latest"))
        pairs.append(
            swap(
                ["keep-stored=latest"],
                "world:\n  keep-stored: latest\n" + bundledAsIs("63-one-push-stored-per-app.ring"),
                "keep-stored: latest", "keep-stored: oldest"))
        // A GOAWAY's reason: a transient one is reconnected after, a permanent one is not.
        pairs.append(
            swap(
                ["step.fault.reason"], bundledAsIs("69-idle-timeout.ring"), "reason: IdleTimeout",
                "reason: BadCertificateEnvironment"))
        pairs.append(
            swap(["step.expect apns.goaway"], bundledAsIs("08-goaway.ring"), "goaway: Shutdown", "goaway: IdleTimeout"))
        pairs += rulePairs()
        return pairs
    }()

    /// The pairs whose scenarios both run in memory (only the built-in provider speaks to the mock),
    /// and those where a command or a provider process does: they need a socket.
    /// A load (issue 48): each of its words, and each aggregate, changes a verdict. Small and fast:
    /// tens of calls, in memory on the manual clock.
    static func loadPairs() -> [Pair] {
        func load(_ options: String, expect: String, world: String = "", provider: String = "reference") -> String {
            """
            provider:
              builtin: \(provider)
            world:
              unregister-delay: 0s
            \(world)steps:
              - load: pair
            \(options.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
              - expect load: pair
            \(expect.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))

            """
        }
        var pairs: [Pair] = []
        let all = load("phones: 20\ncalls: 40\nrate: 400/s", expect: "rang-at-least: 100%")
        for share in ["offline", "uninstalled", "do-not-disturb", "never-reports"] {
            pairs.append(
                swap(
                    [
                        "step.load", "step.load.\(share)", "step.load.phones", "step.load.calls", "step.expect load",
                        "step.expect load.rang-at-least",
                    ], all.replacingOccurrences(of: "rate: 400/s", with: "rate: 400/s\n    \(share): 0%"),
                    "\(share): 0%", "\(share): 50%"))
        }
        let quarterOffline = load("phones: 20\ncalls: 40\nrate: 400/s\noffline: 25%", expect: "rang-at-least: 50%")
        pairs.append(
            swap(["step.expect load.rang-at-least"], quarterOffline, "rang-at-least: 50%", "rang-at-least: 100%"))
        pairs.append(
            swap(
                ["step.expect load.missed-by-at-most"],
                load("phones: 20\ncalls: 40\nrate: 400/s\noffline: 25%", expect: "missed-by-at-most: offline 40%"),
                "offline 40%", "offline 5%"))
        // On the load's timeline: a 503 for every try from 1.8 s into a 1.9 s load meets its last calls
        // only; from its start, every call. A storm of 10 ms is ridden out by back-off; of a minute,
        // not (the reference gives up after four tries, a few seconds apart in a load's real time).
        let timed = load("phones: 20\ncalls: 20\nrate: 10/s", expect: "rang-at-least: 85%")
        pairs.append(
            swap(
                ["step.fault.at"],
                timed.replacingOccurrences(
                    of: "steps:\n", with: "steps:\n  - fault: ServiceUnavailable\n    count: 1000\n    at: 1800ms\n"),
                "at: 1800ms", "at: 0s"))
        pairs.append(
            swap(
                ["step.fault.lasting"],
                timed.replacingOccurrences(
                    of: "steps:\n", with: "steps:\n  - fault: ServiceUnavailable\n    lasting: 10ms\n"),
                "lasting: 10ms", "lasting: 60s"))
        for percentile in [50, 95, 99] {
            pairs.append(
                swap(
                    ["step.expect load.ring-p\(percentile)-at-most"],
                    load("phones: 20\ncalls: 40\nrate: 400/s", expect: "ring-p\(percentile)-at-most: 1s"),
                    "ring-p\(percentile)-at-most: 1s", "ring-p\(percentile)-at-most: 10ms"))
        }
        let dead = load("phones: 4\ncalls: 40\nrate: 400/s\nuninstalled: 50%", expect: "dead-token-pushes-at-most: 0")
        pairs.append(
            swap(
                ["step.expect load.dead-token-pushes-at-most"], dead, "builtin: reference",
                "builtin: keeps-pushing-after-410"))
        // One token pushed more than twice a second is throttled (429).
        let throttle = "  throttle: 2 per 1s\n"
        pairs.append(
            swap(
                ["step.load.phones", "step.expect load.throttled-at-most"],
                load("phones: 40\ncalls: 4\nrate: 400/s", expect: "throttled-at-most: 0", world: throttle),
                "phones: 40", "phones: 1"))
        pairs.append(
            swap(
                ["step.load.calls"],
                load("phones: 1\ncalls: 2\nrate: 400/s", expect: "throttled-at-most: 0", world: throttle),
                "calls: 2", "calls: 6"))
        pairs.append(
            swap(
                ["step.load.rate"],
                load("phones: 1\ncalls: 4\nrate: 1/s", expect: "throttled-at-most: 0", world: throttle),
                "rate: 1/s", "rate: 100/s"))
        pairs.append(
            swap(
                ["step.load.ramp"],
                load(
                    "phones: 1\ncalls: 4\nrate: 1/s\nramp: 1/s over 1s", expect: "throttled-at-most: 0", world: throttle
                ),
                "ramp: 1/s over 1s", "ramp: 1000/s over 1s"))
        pairs.append(
            swap(
                ["step.expect load.pushes-per-call-at-most"],
                load("phones: 40\ncalls: 4\nrate: 400/s", expect: "pushes-per-call-at-most: 1", world: throttle),
                "phones: 40", "phones: 1"))
        pairs.append(
            swap(
                ["step.expect load.connections-at-most"],
                load("phones: 20\ncalls: 20\nrate: 400/s", expect: "connections-at-most: 2"), "steps:\n",
                "steps:\n  - fault: goaway\n    after-accepted: 5\n"))
        pairs.append(
            swap(
                ["step.load.hot-user"],
                load(
                    "phones: 1000\ncalls: 20\nrate: 400/s\nhot-user: 0%", expect: "throttled-at-most: 0",
                    world: throttle),
                "hot-user: 0%", "hot-user: 50%"))
        return pairs
    }

    public static let inMemory = pairs.filter(\.runsInMemory)
    public static let throughAProcess = pairs.filter { !$0.runsInMemory }

    /// One scenario of a pair, as a file beside the library's.
    static func file(_ text: String) -> SourceFile { SourceFile(path: Paths.root + "/scenarios/pair.ring", text: text) }

    /// One scenario of a pair, run where it can run (`transport(for:)`).
    public static func verdict(_ text: String) -> ScenarioResult {
        let file = file(text)
        return ScenarioRunner.run(file, certs: Paths.certs, transport: transport(for: file))
    }
}

extension VerdictPairs.Pair {
    /// Whether both scenarios run in memory.
    var runsInMemory: Bool { [passing, failing].allSatisfy { transport(for: VerdictPairs.file($0)) == .memory } }

    /// The pair with its scenarios exchanged: the word's absence is what passes.
    public func flipped() -> Self { Self(words: words, passing: failing, failing: passing) }

    /// Both scenarios with more steps at the end.
    public func withSteps(_ steps: String) -> Self {
        Self(words: words, passing: passing + steps, failing: failing + steps)
    }

    public func prefixed(_ text: String) -> Self {
        Self(words: words, passing: VerdictPairs.scenario(text), failing: failing)
    }
}

/// One scenario of the pair passes, the other fails.
public func expectTheWordChangesTheVerdict(_ pair: VerdictPairs.Pair) {
    let passing = VerdictPairs.verdict(pair.passing)
    #expect(passing.diagnostics.isEmpty, "\(passing.diagnostics.map(\.detail))")
    #expect(
        passing.passed,
        "passing: \(passing.error ?? "") \(passing.expectations.filter { !$0.passed }.map(\.happened))\n\(pair.passing)"
    )
    let failing = VerdictPairs.verdict(pair.failing)
    #expect(failing.diagnostics.isEmpty, "\(failing.diagnostics.map(\.detail))\n\(pair.failing)")
    #expect(!failing.passed, "failing passed:\n\(pair.failing)")
}
