/// Why a push was refused: the reason APNs answers with, which check said so, and what was wrong.
public struct Rejection: Error, Sendable, Equatable {
    public var reason: Reason
    public var check: Check
    /// What was sent and what was expected, quoting values as `<value>` (STYLE.md).
    public var detail: String
    /// Set when a `voip-lint` rule refused it; its explanation replaces the reason's.
    public var lint: LintRule?
    /// For 410: when the token stopped being valid, milliseconds since 1970 ([RESP]).
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

    /// The sentence for a log or a report.
    public var explanation: String { lint?.explanation ?? reason.explanation }

    /// The JSON body APNs sends: `{"reason":…}`, plus `timestamp` with 410 ([RESP]).
    public var responseBody: String {
        if let timestamp { return #"{"reason":"\#(reason.wire)","timestamp":\#(timestamp)}"# }
        return #"{"reason":"\#(reason.wire)"}"#
    }
}

/// What the `voip-lint` profile refuses although Apple accepts it: each a VoIP provider must not do.
public enum LintRule: String, CaseIterable, Sendable {
    case topicWithoutVoipSuffix = "topic-without-voip-suffix"
    case pushTypeNotVoip = "push-type-not-voip"
    case priorityNotImmediate = "priority-not-10"
    case nonZeroExpiration = "non-zero-expiration"

    public var reason: Reason {
        switch self {
        case .topicWithoutVoipSuffix: return .topicDisallowed
        case .pushTypeNotVoip: return .invalidPushType
        case .priorityNotImmediate: return .badPriority
        case .nonZeroExpiration: return .badExpirationDate
        }
    }

    /// Why a VoIP provider must not do it ([PK-VOIP], [SEND]).
    public var explanation: String {
        switch self {
        case .topicWithoutVoipSuffix:
            return
                "voip-lint: a VoIP push must name the topic <bundle>.voip; with the bare bundle id APNs treats it as a regular notification and PushKit never sees it, so the phone does not ring."
        case .pushTypeNotVoip:
            return
                "voip-lint: a VoIP push must say apns-push-type: voip; without it APNs may delay or drop the push, and with another type a .voip topic is refused."
        case .priorityNotImmediate:
            return
                "voip-lint: a call must ring now: send VoIP pushes with apns-priority 10; priority 5 lets APNs hold the push to save power, and the caller hangs up before it arrives."
        case .nonZeroExpiration:
            return
                "voip-lint: send VoIP pushes with apns-expiration 0; a stored push reaches a phone that comes back online after the call is over and rings for a call that no longer exists (a ghost call)."
        }
    }
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
    /// `voip-lint` compares the expiration with now), the body, the connection's token state (the
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
