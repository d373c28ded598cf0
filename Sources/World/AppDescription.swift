import APNs

/// A key of an app's description, declared once for every surface that describes an app: a
/// scenario's `apps:` (its `scenarioKey`) and the control API's `POST /phones` and
/// `POST /phones/{id}/apps` (its `jsonKey`). Each surface reads its raw values into `AppValue`s;
/// `AppDescription.spec` checks every value and rule once (issue 47: the checker and the control
/// API had their own readers, and the control API had no `reports-with`). Adding a key is a case
/// here, its spelling, meaning and value, and what it sets in `spec`.
public enum AppKey: String, CaseIterable, Sendable {
    case bundle, ios, behaviour, roundTrip, blocking, environment, entitled, reportsWith

    /// How a scenario writes it.
    public var scenarioKey: String {
        switch self {
        case .bundle: "bundle"
        case .ios: "ios"
        case .behaviour: "behaviour"
        case .roundTrip: "round-trip"
        case .blocking: "blocking"
        case .environment: "environment"
        case .entitled: "entitled"
        case .reportsWith: "reports-with"
        }
    }

    /// How the control API's JSON writes it.
    public var jsonKey: String {
        switch self {
        case .bundle: "bundleId"
        case .ios: "ios"
        case .behaviour: "behaviour"
        case .roundTrip: "roundTripSeconds"
        case .blocking: "blocking"
        case .environment: "environment"
        case .entitled: "entitled"
        case .reportsWith: "reportsWith"
        }
    }

    public var meaning: String {
        switch self {
        case .bundle: "the app's bundle ID; its VoIP topic adds .voip"
        case .ios: "the iOS version, which decides the reporting rule (13, 26.4)"
        case .behaviour: "what the app does with a VoIP push: reports-at-once, never-reports …"
        case .roundTrip: "how long the app's server takes to answer before it reports"
        case .blocking: "whether the app waits for its server inside the PushKit delegate"
        case .environment: "which APNs environment issued the app's tokens"
        case .entitled: "whether the app may use CallKit (false: every report is refused)"
        case .reportsWith:
            "which framework the app reports calls to: callkit (default) or livecommunicationkit (iOS 17.4+, the same rule)"
        }
    }

    public var takes: AppValueKind {
        switch self {
        case .bundle: .text
        case .ios: .version
        case .behaviour: .word(AppBehaviour.names)
        case .roundTrip: .seconds(atMost: 3600)
        case .blocking, .entitled: .boolean
        case .environment: .word(APNsEnvironment.allCases.map(\.rawValue))
        case .reportsWith: .word(CallFramework.allCases.map(\.rawValue))
        }
    }
}

/// What an app key takes, for each surface to read its raw value into an `AppValue`.
public enum AppValueKind: Sendable, Equatable {
    /// Text, not empty.
    case text
    /// An iOS version: `26.4`, `13`, `17.4.1`.
    case version
    /// One of these words.
    case word([String])
    /// Seconds, from 0 to this many (a scenario writes a duration, the JSON a number).
    case seconds(atMost: Double)
    case boolean
}

/// A value as a surface read it.
public enum AppValue: Sendable, Equatable {
    case text(String)
    case seconds(Double)
    case boolean(Bool)
}

/// What is wrong with one value of an app's description, and a near word when there is one.
public struct AppProblem: Sendable, Equatable {
    public let key: AppKey
    /// A diagnostic's title (`Unknown value`, `Not used` …).
    public let title: String
    public let message: String
    public let suggestion: String?
    /// Whether it is about the key being there (`Not used`), not about its value.
    public var aboutTheKey: Bool { title == "Not used" || title == "Missing key" }
}

public enum AppDescription {
    /// The app `values` describe, or what is wrong with them, key by key. `bundle` is required;
    /// the others default as a phone's apps do (iOS 18, reports at once after 2 s if it waits,
    /// `environment` the mock's, entitled, CallKit).
    /// `spelling`: how the surface writes a key, for its messages (`\.scenarioKey`, `\.jsonKey`).
    public static func spec(
        _ values: [AppKey: AppValue], environment: APNsEnvironment, spelling: KeyPath<AppKey, String> = \.scenarioKey
    ) -> (spec: AppSpec?, problems: [AppProblem]) {
        var problems: [AppProblem] = []
        func written(_ key: AppKey) -> String { key[keyPath: spelling] }
        func wrongKind(_ key: AppKey) -> String {
            switch key.takes {
            case .text: "<\(written(key))> takes text"
            case .version: "<\(written(key))> takes a version like 26.4"
            case .word(let words): "<\(written(key))> takes one of \(words.joined(separator: ", "))"
            case .seconds(let most): "<\(written(key))> takes seconds from 0 to \(Int(most))"
            case .boolean: "<\(written(key))> takes true or false"
            }
        }
        func text(_ key: AppKey) -> String? {
            guard let value = values[key] else { return nil }
            guard case .text(let text) = value else {
                problems.append(AppProblem(key: key, title: "Wrong value", message: wrongKind(key), suggestion: nil))
                return nil
            }
            return text
        }
        func word(_ key: AppKey) -> String? {
            guard let text = text(key), case .word(let words) = key.takes else { return nil }
            if words.contains(text) { return text }
            problems.append(
                AppProblem(
                    key: key, title: "Unknown value",
                    message: "<\(written(key))> takes one of \(words.joined(separator: ", ")); got <\(clip(text))>",
                    suggestion: didYouMean(text, among: words)))
            return nil
        }
        func flag(_ key: AppKey) -> Bool? {
            guard let value = values[key] else { return nil }
            guard case .boolean(let flag) = value else {
                problems.append(AppProblem(key: key, title: "Wrong value", message: wrongKind(key), suggestion: nil))
                return nil
            }
            return flag
        }
        func seconds(_ key: AppKey) -> Double? {
            guard let value = values[key], case .seconds(let most) = key.takes else { return nil }
            guard case .seconds(let seconds) = value, seconds.isFinite, (0...most).contains(seconds) else {
                problems.append(AppProblem(key: key, title: "Wrong value", message: wrongKind(key), suggestion: nil))
                return nil
            }
            return seconds
        }

        let bundle = text(.bundle)
        if values[.bundle] == nil || bundle?.isEmpty == true {
            problems.append(
                AppProblem(
                    key: .bundle, title: "Missing key", message: "an app needs <\(written(.bundle))>, not empty",
                    suggestion: nil))
        }
        var ios = OSVersion(18)
        if let version = text(.ios) {
            if let parsed = Self.version(version) {
                ios = parsed
            } else {
                problems.append(
                    AppProblem(
                        key: .ios, title: "Not an iOS version",
                        message: "<\(written(.ios))> takes a version like <26.4>, got <\(clip(version))>",
                        suggestion: nil))
            }
        }
        let name = word(.behaviour).flatMap(AppBehaviour.Name.init(rawValue:)) ?? .reportsAtOnce
        // A round trip belongs to the behaviour that makes one: elsewhere it would be ignored.
        for key in [AppKey.roundTrip, .blocking] where values[key] != nil && !name.hasRoundTrip {
            problems.append(
                AppProblem(
                    key: key, title: "Not used",
                    message:
                        "<\(written(key))> applies only to <\(written(.behaviour)): \(AppBehaviour.Name.reportsAfterRoundTrip.rawValue)>",
                    suggestion: nil))
        }
        let behaviour = AppBehaviour(name, seconds: seconds(.roundTrip) ?? 2, blocking: flag(.blocking) ?? false)
        let tokens = word(.environment).flatMap(APNsEnvironment.init(rawValue:)) ?? environment
        let entitled = flag(.entitled) ?? true
        let framework = word(.reportsWith).flatMap(CallFramework.init(rawValue:)) ?? .callKit
        guard problems.isEmpty, let bundle else { return (nil, problems) }
        var spec = AppSpec(bundleId: bundle, ios: ios, behaviour: behaviour, environment: tokens, isEntitled: entitled)
        spec.framework = framework
        return (spec, [])
    }

    /// `26.4`, `13`, `17.4.1`: one to three parts of one or two digits, the first from 1 to 99.
    public static func version(_ text: String) -> OSVersion? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let wellFormed =
            (1...3).contains(parts.count)
            && parts.allSatisfy { (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard wellFormed, let version = OSVersion(text), (1...99).contains(version.major) else { return nil }
        return version
    }

    private static func clip(_ text: String) -> String { text.count > 60 ? String(text.prefix(57)) + "…" : text }
}
