/// What each word of the schema means, in a line: `ringside explain KEYWORD` prints it, and a test
/// keeps it complete (every key, step and option of `Schema` has one). docs/scenario-language.md
/// says the same at length.
public enum Keywords {
    /// Top-level keys and block keys, by `block.key` (`top.seed`, `world.throttle` …).
    public static let keys: [String: String] = [
        "top.scenario": "the scenario's name, as reports show it",
        "top.teaches": "a paragraph for newcomers: what the scenario shows, and why it matters",
        "top.seed": "a number that fixes the world's tokens and the mock's apns-ids, so that runs repeat",
        "top.apns": "the fake APNs: environment, validation profile, how the built-in provider authenticates",
        "top.world": "the world's numbers: delivery latency, ring timeout, throttle, storage",
        "top.phones": "the virtual phones, each with its apps",
        "top.obligation":
            "a requirement's obligation of the provider under test, in its words (\"retries a 503 with back-off\"): the conformance summary's line",
        "top.basis": "what the obligation rests on: apple (Apple documents it), practice, or folklore",
        "top.provider": "the provider under test: builtin: PROFILE, exec: COMMAND, or http: COMMAND with templates",
        "top.steps": "what happens, in order: registrations, calls, phone and app events, faults, expectations",
        "apns.environment": "sandbox (default) or production: which token space and host the mock is",
        "apns.auth": "token or certificate: how the built-in provider authenticates",
        "apns.certificate": "the provider's client certificate from certs-test (voip, novoip, expired …)",
        "apns.profile": "apple (what Apple accepts) or voip-lint (also refuses what a VoIP provider must never send)",
        "apns.folklore": "opt-in rules practitioners report and Apple does not document",
        "apns.transport":
            "tls (default, as APNs) or cleartext: HTTP/2 without TLS (h2c), an opt-in for a provider's local set-up; a cleartext provider fails every other scenario",
        "world.unregister-delay": "how long a retired token still answers 200 before 410",
        "world.unreported-limit": "unreported VoIP pushes before the system stops delivering to the app",
        "world.ring-timeout": "how long a caller waits: a phone that rings later rang late (a ghost call)",
        "world.delivery-latency": "how long a push takes from APNs to an online phone",
        "world.throttle": "N per DURATION to one token before 429 TooManyRequests, or off",
        "world.accept-unknown-tokens": "true: any well-formed token is accepted and reaches no phone",
        "world.keep-stored": "latest (Apple) or oldest: which push APNs keeps for an offline phone",
        "world.wrong-pushes-delivered":
            "true: a VoIP push at priority 5 or 1, or without apns-push-type, rings (default: the phone misses it)",
        "phone.name": "the name steps call the phone by",
        "phone.online": "whether the phone is reachable at the start (default true)",
        "phone.apps": "the phone's apps (default one: com.ringside.testapp)",
        "app.bundle": "the app's bundle ID; its VoIP topic adds .voip",
        "app.ios": "the iOS version, which decides the reporting rule (13, 26.4)",
        "app.behaviour": "what the app does with a VoIP push: reports-at-once, never-reports …",
        "app.round-trip": "how long the app's server takes to answer before it reports",
        "app.blocking": "whether the app waits for its server inside the PushKit delegate",
        "app.environment": "which APNs environment issued the app's tokens",
        "app.entitled": "whether the app may use CallKit (false: every report is refused)",
        "app.reports-with":
            "which framework the app reports calls to: callkit (default) or livecommunicationkit (iOS 17.4+, the same rule)",
        "provider.builtin": "the reference provider (reference) or a naive profile with a classic mistake",
        "provider.exec": "one shell command per push, with {placeholders}",
        "provider.http": "a long-running service, started, waited for, driven over HTTP and stopped",
        "provider.ready": "the URL that answers 200 once the http service is ready",
        "provider.register": "METHOD /path body: how the http service learns a token",
        "provider.unregister": "METHOD /path body: how the http service forgets a token",
        "provider.call": "METHOD /path body: how the http service is asked to ring a user",
        "provider.auth": "in a provider file: token or certificate, how the provider authenticates to APNs",
        "provider.register-answers": "the statuses the register template may answer, e.g. [2xx, 409] (default 2xx)",
        "provider.unregister-answers": "the statuses the unregister template may answer, e.g. [2xx, 404] (default 2xx)",
        "provider.call-answers": "the statuses the call template may answer, e.g. [2xx, 404] (default 2xx)",
        "provider.call-id-at":
            "where the app reads the call id in the payload, a path of keys like data.call.id (default: callUUID and its usual spellings at the top)",
        "provider.caller-at":
            "where the app reads the caller in the payload, e.g. data.call.from (default: handle and its usual spellings at the top)",
        "provider.settles-within":
            "how late an exec or http provider may push after the step that asked (a job queue's delay; default 0 for exec, 2s for http, at most 5m)",
    ]

    /// Steps, by kind (declared in `Vocabulary`).
    public static let steps: [String: String] = Dictionary(
        uniqueKeysWithValues: Vocabulary.steps.map { ($0.name, $0.meaning) })

    /// Step options, by `step.option` (declared in `Vocabulary`).
    public static let options: [String: String] = Dictionary(
        uniqueKeysWithValues: Vocabulary.steps.flatMap { step in
            step.options.map { ("\(step.name).\($0.key)", $0.meaning) }
        })

    /// A keyword in words: a step with its options, or a key (`throttle`, `world.throttle`).
    public static func explain(_ word: String) -> String? {
        if let step = Vocabulary.stepsByName[word] {
            let names = step.options.map { "  \($0.key): \($0.meaning) (\($0.takes.described))" }
            return (["- \(word): \(step.argument) — \(step.meaning)"] + (names.isEmpty ? [] : ["options:"] + names))
                .joined(separator: "\n")
        }
        let matches =
            keys.filter { $0.key == word || $0.key.hasSuffix(".\(word)") }
            + options.filter { $0.key == word || $0.key.hasSuffix(".\(word)") }
        guard !matches.isEmpty else { return nil }
        return matches.sorted { $0.key < $1.key }.map {
            "\($0.key.replacingOccurrences(of: "top.", with: "")): \($0.value)"
        }
        .joined(separator: "\n")
    }
}
