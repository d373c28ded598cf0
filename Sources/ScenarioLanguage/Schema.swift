import APNs

/// What a scenario file may say, section by section: keys, and the values they take. The checker
/// reads it; `docs/scenario-language.md` describes it in prose.
enum Schema {
    /// What a value must be.
    indirect enum Value: Sendable {
        case text
        case number
        case boolean
        case duration
        /// `N per DURATION` (e.g. `3 per 60s`), or `off`.
        case rate
        case oneOf([String])
        case list(Value)
        case block([String: Value], required: [String])
        case listOf([String: Value], required: [String])
        case steps
    }

    static let environments = APNsEnvironment.allCases.map(\.rawValue)
    static let profiles = ValidationSettings.Profile.allCases.map(\.rawValue)
    static let behaviours = [
        "reports-at-once", "reports-after-round-trip", "never-reports", "completes-before-reporting",
        "reports-only-well-formed",
    ]
    /// The provider's client certificate, one of certs-test/client-*.pem.
    static let certificates = [
        "voip", "novoip", "sandbox-only", "production-only", "expired", "untrusted", "plain",
    ]
    static let folklore = ["dead-token-penalty", "daily-voip-budget", "force-quit-blocks-voip"]
    static let providerProfiles = [
        "reference", "forgets-voip-suffix", "priority-5", "non-zero-expiration", "new-jwt-per-request",
        "keeps-pushing-after-410", "prunes-only-on-410", "no-backoff-on-503", "uses-regular-token", "cancels-with-push",
        "registers-twice", "ignores-goaway",
    ]
    static let outcomes = ["rang", "rang-late", "not-delivered", "app-killed", "call-refused", "duplicate"]
    static let reasons = Reason.allCases.map(\.wire)

    static let app: [String: Value] = [
        "bundle": .text, "ios": .text, "behaviour": .oneOf(behaviours), "round-trip": .duration, "blocking": .boolean,
        "environment": .oneOf(environments), "entitled": .boolean,
    ]

    static let top: [String: Value] = [
        "scenario": .text,
        "teaches": .text,
        "seed": .number,
        "apns": .block(
            [
                "environment": .oneOf(environments), "auth": .oneOf(["token", "certificate"]),
                "certificate": .oneOf(certificates), "profile": .oneOf(profiles), "folklore": .list(.oneOf(folklore)),
            ], required: []),
        "world": .block(
            [
                "unregister-delay": .duration, "unreported-limit": .number, "ring-timeout": .duration,
                "delivery-latency": .duration, "throttle": .rate, "accept-unknown-tokens": .boolean,
            ], required: []),
        "phones": .listOf(
            ["name": .text, "online": .boolean, "apps": .listOf(app, required: ["bundle"])], required: ["name"]),
        "provider": .block(
            [
                "builtin": .oneOf(providerProfiles), "exec": .text, "http": .text, "ready": .text, "register": .text,
                "unregister": .text, "call": .text,
            ], required: []),
        "steps": .steps,
    ]

    static let requiredTop = ["scenario", "steps"]

    /// Each step is one `kind: value` line, with optional keys below it.
    static let steps: [String: [String: Value]] = [
        "register": ["token": .oneOf(["voip", "alert"]), "as": .text, "app": .text],
        "unregister": ["as": .text],
        "call": ["from": .text, "as": .text],
        "reinstall": ["app": .text],
        "uninstall": ["app": .text],
        "offline": [:],
        "online": [:],
        "advance": [:],
        "wait": [:],
        "exec": [:],
        "fault": ["count": .number, "token": .text, "after-accepted": .number, "seconds": .duration],
        "expect apns": [
            "count": .number, "status": .number, "reason": .oneOf(reasons), "within": .duration, "phone": .text,
            "header": .text, "refused": .text,
        ],
        "expect phone": ["outcome": .oneOf(outcomes), "reason": .text, "within": .duration, "call": .text],
        "expect provider": [
            "never-pushes": .text, "retried": .text, "reconnected": .boolean, "refreshed-jwt": .boolean,
            "within": .duration,
        ],
    ]
}

/// `3 per 60s` → (3, 60); `off` → (0, 0), meaning no limit; nil when malformed.
public func parseRate(_ text: String) -> (count: Int, window: Double)? {
    if text == "off" { return (0, 0) }
    let parts = text.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 3, parts[1] == "per", let count = Int(parts[0]), count > 0,
        let window = parseDuration(String(parts[2])), window > 0
    else { return nil }
    return (count, window)
}

/// A duration such as `250ms`, `30s`, `5m`, `2h`, `1d`: seconds, or nil.
public func parseDuration(_ text: String) -> Double? {
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
    for (unit, factor) in units where text.hasSuffix(unit) {
        let number = text.dropLast(unit.count)
        if let value = Double(number), value >= 0, !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }) {
            return value * factor
        }
    }
    return nil
}
