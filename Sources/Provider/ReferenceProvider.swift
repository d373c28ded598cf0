import APNs
import Foundation
import Synchronization

/// What the provider did, for tests and reports.
public enum ProviderAction: Sendable, Equatable {
    case sent(token: String, status: Int, reason: Reason?)
    case forgot(token: String, reason: Reason)
    case retried(token: String, after: Double)
    case refreshedJWT
    case resentOnNewConnection(token: String)
    case gaveUp(token: String, reason: Reason?)
    /// A connection answered 5xx again and again and was replaced (`ConnectionPolicy`).
    case retiredConnection(number: Int)
    /// A permanent failure (a certificate refused, GOAWAY BadCertificateEnvironment …): nothing more
    /// is sent on this configuration, and this says why, once.
    case stopped(why: String)
}

extension ProviderAction {
    var stoppedBecause: String? { if case .stopped(let why) = self { why } else { nil } }
}

extension [ProviderAction] {
    /// Why the provider stopped sending (`ProviderAction.stopped`), if it did.
    public var stoppedBecause: String? {
        lazy.compactMap(\.stoppedBecause).first
    }
}

/// Actions kept up to a count, the rest counted; why the provider stopped is always kept.
struct KeptActions: Sendable {
    var actions: [ProviderAction] = []
    var notKept = 0

    mutating func note(_ action: ProviderAction, keeping: Int) {
        if actions.count < keeping || action.stoppedBecause != nil {
            actions.append(action)
        } else {
            notKept += 1
        }
    }
}

/// The built-in provider: registers device tokens, places calls, handles every answer as Apple says.
/// Unchecked Sendable: used from one thread at a time, the scenario runner's (or test's) that drives it;
/// `actions`, `serverErrorsInARow`, `random`, `ids` and `sleep` have no lock.
public final class ReferenceProvider: @unchecked Sendable {
    public let profile: ProviderProfile
    public let bundleId: String
    /// The VoIP topic, made once: every push names it.
    private let voipTopic: String
    public let store: TokenStore
    public var actions: [ProviderAction] { kept.actions }
    /// How many actions are kept; past it they are counted, not kept (a long load's pushes, each
    /// an action or more: ScenarioRunner then judges only `expect load`). Why it stopped is kept.
    public var keptActions = Int.max
    public var actionsNotKept: Int { kept.notKept }
    private var kept = KeptActions()
    private let client: any PushTransport
    private let configuration: ClientConfiguration
    /// 5xx answers in a row, per connection number (`ConnectionPolicy.decide(serverErrorsInARow:)`).
    private var serverErrorsInARow: [Int: Int] = [:]
    /// How often `reconnect-storm` reconnects at once before giving up (the incident: eight in 200 ms).
    static let stormReconnects = 8
    /// How often one push refused with REFUSED_STREAM is sent again before giving up.
    static let refusedStreamResends = 8
    private let policy = ResponsePolicy()
    private var random = SystemRandomNumberGenerator()
    private var ids = MessageIdGenerator()
    /// Sleeping, replaceable so tests need not wait (and never assert on wall-clock time).
    public var sleep: (Double) -> Void = { usleep(UInt32(max(0, $0) * 1_000_000)) }

    public init(configuration: ClientConfiguration, bundleId: String, profile: ProviderProfile = .reference) throws {
        self.configuration = configuration
        self.bundleId = bundleId
        voipTopic = bundleId + ".voip"
        self.profile = profile
        store = TokenStore(deduplicates: profile != .registersTwice)
        client = try Self.transport(configuration, profile)
    }

    /// One connection at a time, replaced as the connection policy says; for `ignores-goaway` the
    /// connection it never replaces.
    private static func transport(_ configuration: ClientConfiguration, _ profile: ProviderProfile) throws
        -> any PushTransport
    {
        var options = HTTP2ClientConnection.Options()
        switch profile {
        case .ignoresGoAway: return try CachedConnection(configuration: configuration)
        case .skipsServerVerification: options.verifiesServer = false
        case .dropsRefusedStreams: options.initialStreamLimit = nil
        default: break
        }
        return try ConnectionKeeper(configuration: configuration, options: options)
    }

    /// This provider and `count - 1` more like it (its configuration, profile, back-off and kept
    /// actions), each on a connection of its own with tokens of its own: the lanes of a load, each
    /// pushing for its share of the phones while the others push for theirs (Apple: "If you're
    /// sending many remote notifications, you can establish multiple connections to these servers
    /// to improve performance", "Establishing a connection to APNs"). They act as one provider:
    /// they send one JWT, signed here first; every connection is open before the first call (a
    /// lane's first is no reconnection); what each does goes in one log, in the order they did it;
    /// and a permanent failure met by one stops them all. Each is used from one thread at a time.
    /// `endLanes` brings the log back here.
    public func lanes(_ count: Int) throws -> [ReferenceProvider] {
        let log = LaneLog(keeping: keptActions)
        if let why = stoppedBecause { log.stop(why) }
        laneLog = log
        try client.connect()
        var lanes = [self]
        for _ in 1..<max(1, count) {
            let lane = try ReferenceProvider(configuration: configuration, bundleId: bundleId, profile: profile)
            lane.sleep = sleep
            lane.keptActions = keptActions
            lane.laneLog = log
            lane.client.providerTokens = client.providerTokens?.shared()
            if let why = stoppedBecause { lane.client.stop(why) }
            try lane.client.connect()
            lanes.append(lane)
        }
        return lanes
    }

    /// The lanes are done: what they did joins this provider's actions, in the order it happened.
    public func endLanes(_ lanes: [ReferenceProvider]) {
        guard let log = laneLog else { return }
        laneLog = nil
        let logged = log.state.withLock { $0.kept }
        for action in logged.actions { note(action) }
        kept.notKept += logged.notKept
        for lane in lanes where lane !== self {
            lane.laneLog = nil
            laneSignedTokens += lane.signedTokens
            laneConnections += lane.connectionsOpened
        }
    }

    /// What a load's lanes share (`lanes`): their log, kept as `keptActions` says, and their stop.
    final class LaneLog: Sendable {
        let state = Mutex<(kept: KeptActions, stopped: String?)>((KeptActions(), nil))
        let keeping: Int
        init(keeping: Int) { self.keeping = keeping }

        func note(_ action: ProviderAction) {
            state.withLock { state in
                if let why = action.stoppedBecause, state.stopped == nil { state.stopped = why }
                state.kept.note(action, keeping: keeping)
            }
        }

        func stop(_ why: String) { state.withLock { if $0.stopped == nil { $0.stopped = why } } }
        var stopped: String? { state.withLock { $0.stopped } }
        func contains(_ action: ProviderAction) -> Bool { state.withLock { $0.kept.actions.contains(action) } }
    }

    /// Set while this provider is one of a load's lanes.
    private var laneLog: LaneLog?

    /// The JWTs signed and connections opened by the lanes this one was the first of.
    private var laneSignedTokens = 0
    private var laneConnections = 0

    public var signedTokens: Int { client.signedTokens + laneSignedTokens }

    /// How many connections the provider has opened (handshakes tried).
    public var connectionsOpened: Int { client.connectionsOpened + laneConnections }

    /// Why the provider stopped sending, if it did.
    public var stoppedBecause: String? {
        actions.stoppedBecause
    }

    public func register(user: String, token: String, kind: TokenStore.Kind = .voip) {
        store.register(user: user, token: token, kind: kind, at: configuration.now())
    }

    /// Rings every phone of `user`: one VoIP push per VoIP token (or per regular token, for the
    /// profile that confuses them), sent together on one connection, each then handled until
    /// delivered or given up.
    @discardableResult
    public func placeCall(to user: String, callUUID: String = UUID().uuidString.lowercased(), caller: String) throws
        -> [PushAnswer]
    {
        try placeCalls([(user, callUUID)], caller: caller)
    }

    /// Rings every phone of each user at once: their pushes go together on one connection, as
    /// many in flight as APNs allows (a load's calls due at the same moment).
    @discardableResult
    public func placeCalls(_ calls: [(user: String, callUUID: String)], caller: String) throws -> [PushAnswer] {
        let kind: TokenStore.Kind = profile == .usesRegularToken ? .alert : .voip
        var rings: [(token: String, callUUID: String)] = []
        rings.reserveCapacity(calls.count)
        for call in calls {
            for entry in store.tokens(for: call.user, kind: kind) { rings.append((entry.token, call.callUUID)) }
        }
        var answers = try deliver(rings.map { push(to: $0.0, callUUID: $0.1, caller: caller) })
        if profile == .cancelsWithPush {
            answers += try deliver(rings.map { push(to: $0.0, callUUID: $0.1, caller: caller, cancel: true) })
        }
        return answers
    }

    func push(to token: String, callUUID: String, caller: String, cancel: Bool = false) -> OutgoingPush {
        var push = OutgoingPush.voip(
            token: token, topic: voipTopic, callUUID: callUUID, caller: caller, apnsId: ids.next())
        if cancel { push.payload = Array(#"{"aps":{},"callUUID":"\#(callUUID)","cancel":true}"#.utf8) }
        // The reference's headers stand as made (a copy of each was a retain of every string).
        guard Self.changesHeaders.contains(profile) else { return push }
        push.headers = push.headers.map { field -> (name: String, value: String) in
            switch (profile, field.name) {
            case (.forgetsVoipSuffix, "apns-topic"): return (field.name, bundleId)
            case (.priorityFive, "apns-priority"): return (field.name, "5")
            case (.nonZeroExpiration, "apns-expiration"):
                return (field.name, String(Int(configuration.now()) + 86_400))
            default: return field
            }
        }
        return push
    }

    /// The profiles whose mistake is in a header (`push(to:)`).
    private static let changesHeaders: Set<ProviderProfile> = [.forgetsVoipSuffix, .priorityFive, .nonZeroExpiration]

    /// Sends on this provider's connection, unless another lane of its load met a permanent
    /// failure: then this lane stops too, as one provider would.
    private func send(_ pushes: [OutgoingPush]) throws -> [PushAnswer] {
        if let why = laneLog?.stopped, profile != .ignoresGoAway { client.stop(why) }
        return try client.send(pushes)
    }

    /// One push on its way: its latest answer and what has been tried.
    struct Settling {
        var push: OutgoingPush
        var answer: PushAnswer
        var attempt = 1
        /// Sends refused with REFUSED_STREAM: not attempts, but bounded.
        var refusals = 0
    }

    /// What to do with a push after its answer.
    enum Next {
        case settled
        /// Send it again after this many seconds, with the others of its round.
        case again(after: Double)
    }

    /// Sends the pushes together, then follows Apple's rules (or the profile's mistake) for each
    /// answer, in rounds: every push to send again goes out together after the longest wait of its
    /// round, so that a dozen phones lost to one dead connection cost one timeout, not a dozen.
    func deliver(_ pushes: [OutgoingPush]) throws -> [PushAnswer] {
        if profile == .newTokenPerRequest { client.providerTokenExpired() }
        var settling = zip(pushes, try send(pushes)).map { Settling(push: $0, answer: $1) }
        var round = Array(settling.indices)
        while !round.isEmpty {
            var again: [Int] = []
            var wait = 0.0
            for index in round {
                if case .again(let delay) = try settle(&settling[index]) {
                    again.append(index)
                    wait = max(wait, delay)
                }
            }
            guard !again.isEmpty else { break }
            if wait > 0 { sleep(wait) }
            if profile == .newTokenPerRequest { client.providerTokenExpired() }
            for (index, answer) in zip(again, try send(again.map { settling[$0].push })) {
                settling[index].answer = answer
            }
            round = again
        }
        return settling.map(\.answer)
    }

    private func note(_ action: ProviderAction) {
        if let laneLog { return laneLog.note(action) }
        kept.note(action, keeping: keptActions)
    }

    /// The step after one answer: settled, or sent again after a wait.
    private func settle(_ state: inout Settling) throws -> Next {
        let answer = state.answer
        let token = state.push.deviceToken
        note(.sent(token: token, status: answer.status, reason: answer.reason))
        // The connection first (ConnectionPolicy), then the answer (ResponsePolicy).
        switch connectionDecision(answer) {
        case .stop(let why)?:
            if profile == .reconnectStorm, state.attempt < Self.stormReconnects {
                client.retire(answer.connection)
                note(.resentOnNewConnection(token: token))
                state.attempt += 1
                return .again(after: 0)
            }
            // `ignores-goaway` watches only for answers: it neither stops nor says why.
            if profile != .ignoresGoAway,
                !(laneLog?.contains(.stopped(why: why)) ?? actions.contains(.stopped(why: why)))
            {
                note(.stopped(why: why))
            }
            client.stop(why)
            note(.gaveUp(token: token, reason: answer.reason))
            return .settled
        case .sendAgainAtOnce?:
            // Not processed: not an attempt, but bounded (a server that refuses every stream).
            state.refusals += 1
            guard profile != .dropsRefusedStreams, state.refusals <= Self.refusedStreamResends else {
                note(.gaveUp(token: token, reason: nil))
                return .settled
            }
            return .again(after: 0)
        case .retire?:
            if profile != .sticksToSickConnection {
                client.retire(answer.connection)
                note(.retiredConnection(number: answer.connection))
            }
        case .reconnect?:
            if profile == .ignoresGoAway {
                note(.gaveUp(token: token, reason: answer.reason))
                return .settled
            }
            client.retire(answer.connection)
        case nil: break
        }
        // Jitter only for an answer that can be retried: drawn from the system's generator, a
        // syscall each, it was a fiftieth of a load's work when drawn for every push (perf).
        var step = policy.next(
            status: answer.status, reason: answer.reason, attempt: state.attempt,
            jitter: answer.status == 200 ? 0 : Double.random(in: 0..<1, using: &random))
        switch (profile, step) {
        case (.keepsPushingAfter410, .forgetToken(let reason)) where answer.status == 410,
            (.prunesOnlyOn410, .forgetToken(let reason)) where answer.status != 410:
            note(.gaveUp(token: token, reason: reason))
            return .settled
        case (.noBackoffOn503, .retry) where state.attempt < 10: step = .retry(after: 0)
        case (.noBackoffOn503, .giveUp) where answer.status == 503 && state.attempt < 10: step = .retry(after: 0)
        case (.reconnectStorm, .reconnectAndRetry): step = .reconnectAndRetry(after: 0)
        default: break
        }
        state.attempt += 1
        switch step {
        case .delivered: return .settled
        case .forgetToken(let reason):
            store.forget(token: token, unregisteredAt: reason == .unregistered ? answer.timestamp : nil)
            note(.forgot(token: token, reason: reason))
            return .settled
        case .fix, .giveUp:
            note(.gaveUp(token: token, reason: answer.reason))
            return .settled
        case .refreshTokenAndRetry:
            // A new JWT on a new connection: APNs wedges a connection after ExpiredProviderToken
            // (pushy closes it), and a second JWT on one connection within 20 minutes is 429. The
            // `ignores-goaway` provider never replaces its connection: a new JWT on the same one.
            client.providerTokenExpired()
            client.retire(answer.connection)
            note(.refreshedJWT)
            return .again(after: 0)
        case .retry(let delay):
            note(.retried(token: token, after: delay))
            return .again(after: delay)
        case .reconnectAndRetry(let delay):
            if delay > 0 { note(.retried(token: token, after: delay)) }
            note(.resentOnNewConnection(token: token))
            return .again(after: delay)
        }
    }

    /// What the connection policy says about this answer: a failure without an answer, or one 5xx
    /// too many on its connection.
    private func connectionDecision(_ answer: PushAnswer) -> ConnectionDecision? {
        if answer.status == 0 { return answer.failure.map(ConnectionPolicy.decide) }
        guard answer.status >= 500 else {
            serverErrorsInARow[answer.connection] = 0
            return nil
        }
        serverErrorsInARow[answer.connection, default: 0] += 1
        return ConnectionPolicy.decide(serverErrorsInARow: serverErrorsInARow[answer.connection, default: 0])
    }
}
