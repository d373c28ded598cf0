import APNs
import Foundation

/// What the provider did, for tests and reports.
public enum ProviderAction: Sendable, Equatable {
    case sent(token: String, status: Int, reason: Reason?)
    case forgot(token: String, reason: Reason)
    case retried(token: String, after: Double)
    case refreshedJWT
    case resentOnNewConnection(token: String)
    case gaveUp(token: String, reason: Reason?)
}

/// The built-in provider: registers tokens, places calls, handles every answer as Apple says.
public final class ReferenceProvider: @unchecked Sendable {
    public let profile: ProviderProfile
    public let bundleId: String
    public let store: TokenStore
    public private(set) var actions: [ProviderAction] = []
    private var client: any PushTransport
    private let configuration: ClientConfiguration
    private let policy = ResponsePolicy()
    private var random = SystemRandomNumberGenerator()
    private var ids = MessageIdGenerator()
    /// Sleeping, replaceable so tests need not wait (and never assert on wall-clock time).
    public var sleep: (Double) -> Void = { usleep(UInt32(max(0, $0) * 1_000_000)) }

    public init(configuration: ClientConfiguration, bundleId: String, profile: ProviderProfile = .reference) throws {
        self.configuration = configuration
        self.bundleId = bundleId
        self.profile = profile
        store = TokenStore(deduplicates: profile != .registersTwice)
        client = try Self.transport(configuration, profile)
    }

    /// The libcurl client, or for `ignores-goaway` the connection it never replaces.
    private static func transport(_ configuration: ClientConfiguration, _ profile: ProviderProfile) throws
        -> any PushTransport
    {
        profile == .ignoresGoAway
            ? try CachedConnection(configuration: configuration) : try APNsClient(configuration: configuration)
    }

    public var signedTokens: Int { client.signedTokens }

    public func register(user: String, token: String, kind: TokenStore.Kind = .voip) {
        store.register(user: user, token: token, kind: kind, at: Date().timeIntervalSince1970)
    }

    /// Rings every phone of `user`: one VoIP push per VoIP token (or per regular token, for the
    /// profile that confuses them), sent together on one connection, each then handled until
    /// delivered or given up.
    @discardableResult
    public func placeCall(to user: String, callUUID: String = UUID().uuidString.lowercased(), caller: String) throws
        -> [PushAnswer]
    {
        let kind: TokenStore.Kind = profile == .usesRegularToken ? .alert : .voip
        let entries = store.tokens(for: user, kind: kind)
        var answers = try deliver(entries.map { push(to: $0.token, callUUID: callUUID, caller: caller) })
        if profile == .cancelsWithPush {
            answers += try deliver(entries.map { push(to: $0.token, callUUID: callUUID, caller: caller, cancel: true) })
        }
        return answers
    }

    func push(to token: String, callUUID: String, caller: String, cancel: Bool = false) -> OutgoingPush {
        var push = OutgoingPush.voip(
            token: token, bundleId: bundleId, callUUID: callUUID, caller: caller, apnsId: ids.next())
        if cancel { push.payload = Array(#"{"aps":{},"callUUID":"\#(callUUID)","cancel":true}"#.utf8) }
        push.headers = push.headers.map { field -> (name: String, value: String) in
            switch (profile, field.name) {
            case (.forgetsVoipSuffix, "apns-topic"): return (field.name, bundleId)
            case (.priorityFive, "apns-priority"): return (field.name, "5")
            case (.nonZeroExpiration, "apns-expiration"):
                return (field.name, String(Int(Date().timeIntervalSince1970) + 86_400))
            default: return field
            }
        }
        return push
    }

    /// Sends the pushes together, then follows Apple's rules (or the profile's mistake) for each
    /// answer until it is settled.
    func deliver(_ pushes: [OutgoingPush]) throws -> [PushAnswer] {
        if profile == .newTokenPerRequest { client.providerTokenExpired() }
        let first = try client.send(pushes, retryOnFreshConnection: true)
        return try zip(pushes, first).map { try settle($0, first: $1) }
    }

    private func settle(_ push: OutgoingPush, first: PushAnswer) throws -> PushAnswer {
        var answer = first
        var attempt = 1
        while true {
            actions.append(.sent(token: push.deviceToken, status: answer.status, reason: answer.reason))
            if answer.attempts > 1 { actions.append(.resentOnNewConnection(token: push.deviceToken)) }
            var step = policy.next(
                status: answer.status, reason: answer.reason, attempt: attempt,
                jitter: Double.random(in: 0..<1, using: &random))
            switch (profile, step) {
            case (.keepsPushingAfter410, .forgetToken(let reason)) where answer.status == 410,
                (.prunesOnlyOn410, .forgetToken(let reason)) where answer.status != 410:
                actions.append(.gaveUp(token: push.deviceToken, reason: reason))
                return answer
            case (.ignoresGoAway, .reconnectAndRetry):
                actions.append(.gaveUp(token: push.deviceToken, reason: answer.reason))
                return answer
            case (.noBackoffOn503, .retry) where attempt < 10: step = .retry(after: 0)
            case (.noBackoffOn503, .giveUp) where answer.status == 503 && attempt < 10: step = .retry(after: 0)
            default: break
            }
            switch step {
            case .delivered: return answer
            case .forgetToken(let reason):
                store.forget(token: push.deviceToken, unregisteredAt: reason == .unregistered ? answer.timestamp : nil)
                actions.append(.forgot(token: push.deviceToken, reason: reason))
                return answer
            case .fix, .giveUp:
                actions.append(.gaveUp(token: push.deviceToken, reason: answer.reason))
                return answer
            case .refreshTokenAndRetry:
                // A new JWT on a new connection: APNs wedges a connection after ExpiredProviderToken
                // (pushy closes it), and a second JWT on one connection within 20 minutes is 429. The
                // `ignores-goaway` provider never replaces its connection: a new JWT on the same one.
                if profile == .ignoresGoAway {
                    client.providerTokenExpired()
                } else {
                    client = try Self.transport(configuration, profile)
                }
                actions.append(.refreshedJWT)
            case .retry(let delay):
                actions.append(.retried(token: push.deviceToken, after: delay))
                sleep(delay)
            case .reconnectAndRetry(let delay):
                if delay > 0 {
                    actions.append(.retried(token: push.deviceToken, after: delay))
                    sleep(delay)
                }
                client = try Self.transport(configuration, profile)
                actions.append(.resentOnNewConnection(token: push.deviceToken))
            }
            if profile == .newTokenPerRequest { client.providerTokenExpired() }
            answer = try client.send([push], retryOnFreshConnection: true)[0]
            attempt += 1
        }
    }
}
