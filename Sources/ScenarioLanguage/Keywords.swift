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
        "top.provider": "the provider under test: builtin: PROFILE, exec: COMMAND, or http: COMMAND with templates",
        "top.steps": "what happens, in order: registrations, calls, phone and app events, faults, expectations",
        "apns.environment": "sandbox (default) or production: which token space and host the mock is",
        "apns.auth": "token or certificate: how the built-in provider authenticates",
        "apns.certificate": "the provider's client certificate from certs-test (voip, novoip, expired …)",
        "apns.profile": "apple (what Apple accepts) or voip-lint (also refuses what a VoIP provider must never send)",
        "apns.folklore": "opt-in rules practitioners report and Apple does not document",
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
        "provider.builtin": "the reference provider (reference) or a naive profile with a classic mistake",
        "provider.exec": "one shell command per push, with {placeholders}",
        "provider.http": "a long-running service, started, waited for, driven over HTTP and stopped",
        "provider.ready": "the URL that answers 200 once the http service is ready",
        "provider.register": "METHOD /path body: how the http service learns a token",
        "provider.unregister": "METHOD /path body: how the http service forgets a token",
        "provider.call": "METHOD /path body: how the http service is asked to ring a user",
        "provider.auth": "in a provider file: token or certificate, how the provider authenticates to APNs",
    ]

    /// Steps, by kind.
    public static let steps: [String: String] = [
        "register": "the phone's app hands its token to the provider",
        "unregister": "the user who registered the phone logs out: the provider should forget the token",
        "call": "the provider is asked to ring a user",
        "reinstall": "the app is deleted and installed again: new tokens, the old ones die",
        "uninstall": "the app is deleted: its tokens die (410) and it is gone from the phone",
        "rotate-token": "the system issues the app new tokens; the old ones die",
        "force-quit": "the user swipes the app away (matters with folklore force-quit-blocks-voip)",
        "relaunch": "the user opens a force-quit app again",
        "offline": "the phone loses its network",
        "online": "the phone is back: APNs delivers what it stored",
        "foreground": "the user opens the app: it need not report a VoIP push",
        "background": "the user leaves the app",
        "do-not-disturb": "Focus: CallKit refuses calls but from allowed callers",
        "block": "the user blocks a caller: CallKit refuses their calls",
        "on-call": "a call is in progress on the phone: a VoIP push need not be reported",
        "advance": "the world clock moves on (JWTs age, stored pushes expire)",
        "wait": "real time passes",
        "exec": "a command runs once, to its end, with the provider contract in its environment",
        "fault": "the fake APNs misbehaves: an answer, a drop, a delay, a GOAWAY …",
        "expect apns": "what requests the fake APNs saw, or refused in the handshake",
        "expect phone": "how the latest push to a phone (or of a named call) ended, and by which rules",
        "expect provider": "what the provider did about APNs's answers",
    ]

    /// Step options, by `step.option`.
    public static let options: [String: String] = [
        "register.token": "which token: voip (default) or alert",
        "register.as": "the user the token is for (default the phone's name)",
        "register.app": "which of the phone's apps (default its first)",
        "unregister.app": "which app's registration ends",
        "call.from": "the caller's handle, put into the payload",
        "call.as": "a name for the call, for expect phone … call:",
        "reinstall.app": "which app", "uninstall.app": "which app", "rotate-token.app": "which app",
        "force-quit.app": "which app", "relaunch.app": "which app", "foreground.app": "which app",
        "background.app": "which app",
        "do-not-disturb.on": "true (default) or false",
        "do-not-disturb.allow": "callers Focus lets through",
        "block.caller": "the handle (or handles) the user blocks",
        "on-call.on": "true (default) or false: the call ends",
        "fault.count": "how many requests it applies to",
        "fault.phone": "only requests to this phone's token",
        "fault.after-accepted": "GOAWAY after this many accepted pushes",
        "fault.seconds": "the delay, or the idle time after which a connection answers 500",
        "fault.reason": "the GOAWAY's reason (default Shutdown)",
        "expect apns.count": "exactly this many matching requests (without it: at least one)",
        "expect apns.status": "requests answered with this status",
        "expect apns.reason": "requests answered with this APNs reason",
        "expect apns.within": "real time to wait for them",
        "expect apns.phone": "requests to this phone's tokens",
        "expect apns.header": "requests with this header, \"name: value\"",
        "expect apns.refused": "a connection refused in the TLS handshake, for this reason",
        "expect apns.refused-streams": "exactly this many streams refused unprocessed",
        "expect apns.goaway": "the fake APNs sent GOAWAY with this reason (with count: exactly so many)",
        "expect phone.outcome": "rang, rang-late, not-delivered, app-killed, call-refused or duplicate",
        "expect phone.reason": "why it did not ring (offline-not-stored, app-blocked …)",
        "expect phone.within": "real time to wait for the push to end (default 2s)",
        "expect phone.call": "a call named with as: instead of the latest push",
        "expect phone.rules": "rules the push's story must show (ringside explain rules)",
        "expect provider.never-pushes": "no push to this phone's tokens after APNs refused them for good",
        "expect provider.retried": "at least N retries of 429/5xx, each after at least 100 ms",
        "expect provider.reconnected": "after GOAWAY, pushes went on a new connection",
        "expect provider.refreshed-jwt": "a new JWT after ExpiredProviderToken",
        "expect provider.connections-at-most": "at most N connections over the whole scenario",
        "expect provider.stopped": "the built-in provider stopped after a permanent failure, saying this",
        "expect provider.within": "real time to wait",
    ]

    /// A keyword in words: a step with its options, or a key (`throttle`, `world.throttle`).
    public static func explain(_ word: String) -> String? {
        if let meaning = steps[word] {
            let names = (Schema.steps[word] ?? []).map { "  \($0): \(options["\(word).\($0)"] ?? "")" }
            return (["- \(word): \(meaning)"] + (names.isEmpty ? [] : ["options:"] + names)).joined(separator: "\n")
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
