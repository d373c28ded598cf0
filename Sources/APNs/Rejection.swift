/// Why a push was refused: the reason APNs answers with, which check said so, and what was wrong.
public struct Rejection: Error, Sendable, Equatable {
    public var reason: Reason
    public var check: Check
    /// What was sent and what was expected, quoting values as `<value>` (docs/architecture.md).
    public var detail: String
    /// Set when a `voip-lint` rule refused it: the answer keeps `reason` (a client must understand
    /// it), every description names the rule and explains it, never with the reason's words.
    public var lint: LintRule?
    /// For 410: when the device token stopped being valid, milliseconds since 1970 ([RESP]).
    public var timestamp: Int64?
    /// Under `voip-lint`: the undocumented encodings of a JWT this request verified before a later
    /// check refused it (the notes would be lost otherwise: the JWT is not verified again).
    public var notes: [LintNote] = []

    public init(_ reason: Reason, check: Check, detail: String, lint: LintRule? = nil, timestamp: Int64? = nil) {
        self.reason = reason
        self.check = check
        self.detail = detail
        self.lint = lint
        self.timestamp = timestamp
    }

    /// The request field the refusal is about, for a report to mark on the request: the one the
    /// reason names (TopicDisallowed is about the topic, whichever check found it), the lint rule's,
    /// else the check's; nil when no one field is (duplicate headers, a fault's answer).
    public var header: String? {
        switch lint {
        case .topicWithoutVoipSuffix: return "apns-topic"
        case .pushTypeNotVoip: return "apns-push-type"
        case .priorityNotImmediate: return "apns-priority"
        case .nonZeroExpiration: return "apns-expiration"
        case nil: break
        }
        switch reason {
        case .badTopic, .missingTopic, .topicDisallowed, .deviceTokenNotForTopic: return "apns-topic"
        case .badPriority: return "apns-priority"
        case .invalidPushType: return "apns-push-type"
        case .badExpirationDate: return "apns-expiration"
        case .badMessageId: return "apns-id"
        case .badCollapseId: return "apns-collapse-id"
        case .badDeviceToken, .missingDeviceToken, .badPath, .unregistered, .expiredToken: return ":path"
        case .payloadEmpty, .payloadTooLarge: return "body"
        case .methodNotAllowed: return ":method"
        case .missingProviderToken, .invalidProviderToken, .expiredProviderToken, .unrelatedKeyIdInToken,
            .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken, .tooManyProviderTokenUpdates:
            return "authorization"
        default: return nil
        }
    }

    /// The sentence for a log or a report: the lint rule's name, what it refuses and why, or the
    /// reason's explanation.
    public var explanation: String { lint?.sentence ?? reason.explanation }

    /// What the provider should send instead: the lint rule's advice, or the reason's.
    public var whatToDo: String { lint?.whatToDo ?? reason.whatToDo }

    /// The JSON body APNs sends: `{"reason":…}`, plus `timestamp` with 410 ([RESP]).
    public var responseBody: String {
        if let timestamp { return #"{"reason":"\#(reason.wire)","timestamp":\#(timestamp)}"# }
        return #"{"reason":"\#(reason.wire)"}"#
    }
}

/// What the `voip-lint` profile refuses although Apple accepts it: each a VoIP provider must not do.
/// On the wire the refusal is an Apple reason (`reason`), so that any client understands the answer;
/// the log, the transcript (`lint`), the report and `ringside explain` name the rule
/// (`voip-lint/expiration-not-zero`) and say what it refuses and why, in its own words: a future
/// `apns-expiration` is a valid date that Apple accepts, not a bad one.
public enum LintRule: String, CaseIterable, Sendable {
    case topicWithoutVoipSuffix = "topic-without-voip-suffix"
    case pushTypeNotVoip = "push-type-not-voip"
    case priorityNotImmediate = "priority-not-10"
    case nonZeroExpiration = "expiration-not-zero"

    static let prefix = "voip-lint/"

    /// `voip-lint/<rule>`: what the transcript, the report and `ringside explain` call it.
    public var name: String { Self.prefix + rawValue }

    /// A rule from its name (`voip-lint/expiration-not-zero`), its short name (`expiration-not-zero`),
    /// or the short name a transcript written before the names had (`non-zero-expiration`).
    public init?(name: String) {
        let short = name.hasPrefix(Self.prefix) ? String(name.dropFirst(Self.prefix.count)) : name
        if let rule = LintRule(rawValue: short) {
            self = rule
        } else if short == "non-zero-expiration" {
            self = .nonZeroExpiration
        } else {
            return nil
        }
    }

    /// The Apple reason the refusal answers with.
    public var reason: Reason {
        switch self {
        case .topicWithoutVoipSuffix: return .topicDisallowed
        case .pushTypeNotVoip: return .invalidPushType
        case .priorityNotImmediate: return .badPriority
        case .nonZeroExpiration: return .badExpirationDate
        }
    }

    /// What the rule refuses, and that Apple itself would not (or not for that reason).
    public var explanation: String {
        switch self {
        case .topicWithoutVoipSuffix:
            return
                "a VoIP push (apns-push-type voip) names the bare bundle ID as its apns-topic instead of <bundle>.voip."
        case .pushTypeNotVoip:
            return
                "a push to a <bundle>.voip topic has no apns-push-type, or one other than voip; Apple accepts a missing push type."
        case .priorityNotImmediate:
            return "a VoIP push asks for apns-priority 5 or 1; Apple accepts both, a call cannot wait for either."
        case .nonZeroExpiration:
            return
                "a VoIP push asks APNs to store it: its apns-expiration is a time still to come, or absent (stored up to 30 days). Apple accepts both: the date is valid, not a bad one."
        }
    }

    /// Why a VoIP provider must not do it, with its sources (docs/apns-facts.md).
    public var why: String {
        switch self {
        case .topicWithoutVoipSuffix:
            return
                "The VoIP topic is the bundle ID with .voip ([SEND]); PushKit receives only pushes to it, and APNs refuses a VoIP push to the bare bundle ID with TopicDisallowed (observed: PyAPNs2 #70, node-apn #658), so the phone does not ring."
        case .pushTypeNotVoip:
            return
                "Apple asks for apns-push-type with every push: when it is missing or does not match, APNs may return an error, delay the push or drop it ([SEND]); a .voip topic with another type is refused with InvalidPushType (observed: apns2 #23)."
        case .priorityNotImmediate:
            return
                "A call must ring now: 10 sends at once, 5 lets APNs mind the device's power and 1 never wakes it; such pushes may be grouped, throttled or not delivered ([SEND]), and the caller hangs up before a held push arrives."
        case .nonZeroExpiration:
            return
                "APNs keeps a push it cannot deliver and tries again until that date ([SEND]): a phone that comes back online after the call is over rings for a call that no longer exists (a ghost call). Apple's PushKit advice is an expiration of 0 or a few seconds ([PK-VOIP])."
        }
    }

    /// What to send instead.
    public var whatToDo: String {
        switch self {
        case .topicWithoutVoipSuffix: return "Send apns-topic: <bundle>.voip (the contract's APNS_VOIP_TOPIC)."
        case .pushTypeNotVoip: return "Send apns-push-type: voip with every VoIP push."
        case .priorityNotImmediate: return "Send apns-priority: 10, or no apns-priority (10 is the default)."
        case .nonZeroExpiration:
            return
                "Send apns-expiration: 0 (one delivery attempt, never stored), or a time already past, with every VoIP push."
        }
    }

    /// The rule in one line of a log, a transcript or a report: its name, what it refuses and why.
    public var sentence: String { "\(name): \(explanation) \(why)" }
}

/// An encoding of the provider token that Apple accepts but that is not what Apple documents: `voip-lint`
/// notes it beside the answer (log, transcript `notes`, report), never refuses it (issue 10). Noted when
/// a connection first verifies the JWT.
public enum LintNote: String, CaseIterable, Sendable {
    case issuedAtFraction = "iat-fraction"
    case issuedAtString = "iat-string"
    case extraClaims = "extra-claims"
    case extraHeaderFields = "extra-header-fields"
    case derSignature = "der-signature"

    public var explanation: String {
        switch self {
        case .issuedAtFraction:
            return
                "note: the JWT's iat has a fraction (PyAPNs2 signs time.time()); Apple accepts it, but it documents whole seconds and RFC 7519 servers may round differently."
        case .issuedAtString:
            return
                "note: the JWT's iat is a string of digits (kalyke; APNSwift until 2026); Apple accepts it, but RFC 7519 says NumericDate is a JSON number and stricter servers refuse it."
        case .extraClaims:
            return
                "note: the JWT has claims besides iss and iat; Apple ignores them ([TOKEN] names only iss and iat), they only make every request longer."
        case .extraHeaderFields:
            return
                "note: the JWT header has fields besides alg, kid and typ; Apple ignores them ([TOKEN] names only alg and kid)."
        case .derSignature:
            return
                "note: the ES256 signature is DER-encoded (Java's SHA256withECDSA, as pushy signs); Apple accepts it, but JWS (RFC 7518 §3.4) says raw R‖S, 64 bytes."
        }
    }
}

/// The checks of the validation pipeline; `ValidationOrder` says in which order they run.
public enum Check: String, CaseIterable, Sendable, Codable {
    case method, path, duplicateHeaders, authentication, messageId, topic, pushType, priority, expiration,
        collapseId, topicAuthorization, deviceToken, payload, voipLint, device

    /// Whether the check's answer follows from the header block alone (and the connection's
    /// certificate, fixed by its handshake): the same block gets the same answer, so a connection
    /// runs it once per block (`Validator.CheckedHeaders`). The others read the clock (a JWT ages,
    /// `voip-lint` compares the expiration with now), the body, the connection's provider-token state (the
    /// team a JWT pinned) or the world.
    public var readsOnlyHeaders: Bool {
        switch self {
        case .method, .path, .duplicateHeaders, .messageId, .topic, .pushType, .priority, .expiration, .collapseId,
            .deviceToken:
            return true
        case .authentication, .topicAuthorization, .payload, .voipLint, .device:
            return false
        }
    }
}
