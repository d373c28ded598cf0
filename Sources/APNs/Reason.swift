/// Every reason APNs gives for refusing a push, in one vocabulary (pushy's `RejectionReason` is the model).
///
/// The server answers with `wire`, logs `explanation`, and tells a provider `whatToDo`; the reference
/// client, `explain` and the reports read the same values. Source: [RESP] (docs/apns-facts.md §3.3).
public enum Reason: String, CaseIterable, Sendable, Codable {
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    /// Apple's spelling in [RESP].
    case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
    /// The spelling APNs has been observed to send (APNSwift PR 229, 2025); Ringside's default.
    case badEnvironmentKeyInToken = "BadEnvironmentKeyInToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"

    /// The string APNs puts in `{"reason": …}`.
    public var wire: String { rawValue }

    /// Looks a reason up by its wire string, ignoring case (for `explain` and scenario files).
    public init?(wire: String) {
        guard let found = Reason.allCases.first(where: { $0.rawValue.lowercased() == wire.lowercased() }) else {
            return nil
        }
        self = found
    }

    /// The HTTP status APNs sends with this reason ([RESP] table).
    public var status: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        }
    }

    /// One sentence a newcomer understands: what APNs means by this answer.
    public var explanation: String {
        switch self {
        case .badCollapseId: return "The apns-collapse-id header is longer than the 64 bytes APNs allows."
        case .badDeviceToken:
            return
                "The device token is not a hexadecimal token APNs knows in this environment: malformed, or a sandbox token sent to production (or the reverse)."
        case .badExpirationDate: return "The apns-expiration header is not a UNIX time in seconds."
        case .badMessageId: return "The apns-id header is not a UUID in its 8-4-4-4-12 form."
        case .badPriority: return "The apns-priority header is not 10, 5 or 1, or is not allowed for this push type."
        case .badTopic: return "The apns-topic header is not a topic this connection may name."
        case .deviceTokenNotForTopic:
            return
                "The device token belongs to another topic: for example the app's regular notification token used with the .voip topic."
        case .duplicateHeaders: return "A header appears more than once in the request."
        case .idleTimeout: return "The connection was idle too long and APNs closed it."
        case .invalidPushType:
            return "The apns-push-type header is not a push type APNs knows, or does not match the topic's suffix."
        case .missingDeviceToken: return "The path /3/device/ carries no device token."
        case .missingTopic: return "The apns-topic header is missing and APNs cannot infer it."
        case .payloadEmpty: return "The request has no body; APNs needs a JSON dictionary."
        case .topicDisallowed: return "Pushing to this topic is not allowed for these credentials or this push type."
        case .badCertificate: return "The client certificate is not a valid APNs certificate."
        case .badCertificateEnvironment:
            return "The client certificate is for the other environment (sandbox versus production)."
        case .expiredProviderToken: return "The provider token (JWT) was issued more than an hour ago."
        case .forbidden: return "The credentials may not perform this action."
        case .invalidProviderToken:
            return
                "The provider token (JWT) is invalid: unparsable, signed by an unknown key, a bad signature, or a team other than the connection's."
        case .missingProviderToken:
            return "There is no client certificate and no 'authorization: bearer <JWT>' header."
        case .unrelatedKeyIdInToken:
            return "The JWT's key is unrelated to the key used for the first push on this connection."
        case .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken:
            return "The JWT is signed by a key restricted to the other environment."
        case .badPath: return "The :path is not /3/device/<token>."
        case .methodNotAllowed: return "The :method is not POST."
        case .expiredToken: return "The device token has expired."
        case .unregistered:
            return
                "The device token is no longer active for the topic (the app was removed or the token changed); the timestamp says since when."
        case .payloadTooLarge: return "The payload is larger than 4096 bytes (5120 for VoIP pushes)."
        case .tooManyProviderTokenUpdates:
            return "A new provider token was used on this connection less than 20 minutes after the previous one."
        case .tooManyRequests: return "Too many requests were sent to the same device token in a short time."
        case .internalServerError: return "APNs failed internally."
        case .serviceUnavailable: return "APNs is unavailable for now."
        case .shutdown: return "The APNs server is shutting down."
        }
    }

    /// What a provider should do next ([RESP]; docs/apns-facts.md §3.4).
    public var whatToDo: String {
        switch self {
        case .badDeviceToken, .deviceTokenNotForTopic, .unregistered, .expiredToken:
            return
                "Never retry: stop sending to this token and forget it (for 410, unless the device registered again after the timestamp)."
        case .payloadTooLarge: return "Never retry as is: shorten the payload."
        case .forbidden: return "Never retry: fix the credentials."
        case .tooManyRequests: return "Retry this token later with back-off; keep sending to other tokens."
        case .tooManyProviderTokenUpdates:
            return "Reuse one JWT for 20 to 60 minutes; this connection stays unusable until 20 minutes have passed."
        case .expiredProviderToken: return "Sign a new JWT (refresh every 20 to 60 minutes) and retry once."
        case .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken,
            .badEnvironmentKeyInToken:
            return "Fix the token credentials (key id, team id, key, environment); open a new connection."
        case .badCertificate, .badCertificateEnvironment:
            return "Use a certificate issued for this app and environment; open a new connection."
        case .idleTimeout, .shutdown: return "Open a new connection and send again."
        case .internalServerError, .serviceUnavailable:
            return "Retry later with exponential back-off and jitter (Apple suggests waiting)."
        default: return "Fix the request; retrying it unchanged gets the same answer."
        }
    }

    /// Whether Apple says never to retry this answer ([RESP], "don't retry" list).
    public var isPermanentForToken: Bool {
        switch self {
        case .badDeviceToken, .deviceTokenNotForTopic, .unregistered, .expiredToken, .payloadTooLarge, .forbidden:
            return true
        default: return false
        }
    }

    /// Where Apple documents this reason.
    public var source: String {
        switch self {
        case .badEnvironmentKeyInToken:
            return "Observed spelling (APNSwift PR 229); Apple's table at [RESP] spells it BadEnvironmentKeyIdInToken"
        default:
            return
                "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns"
        }
    }
}
