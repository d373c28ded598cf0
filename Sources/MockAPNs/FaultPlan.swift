import APNs
import Foundation
import Synchronization

/// Scripted behaviour armed by a test or a scenario (WireMock-style), consulted before the rules:
/// keyed by device token, by count, by world-time window or by connection.
///
/// A plan is explicit: nothing in the rules knows about it (docs/architecture.md, "Observers watch,
/// they never decide").
/// The faults and the connection rules are a `Mutex<State>`; `armed` and `hasConnectionRules` are
/// `Atomic`s, only hints read before taking it.
public final class FaultPlan: Sendable {
    /// Which requests a fault applies to; every field left nil matches all.
    public typealias Match = FaultSpec.Match

    /// What a fault does to a request it matches.
    public enum Action: Sendable, Equatable {
        /// Answer with this reason, whatever the rules say (503 ServiceUnavailable, 429, 500 …).
        case answer(Reason)
        /// Never answer: the stream stays open until the provider gives up.
        case drop
        /// Judge as usual, answer after this many seconds.
        case delay(Double)
        /// Once this many pushes were accepted (counting from when it was armed), send GOAWAY with
        /// this reason and the last accepted stream as last-stream-id; later streams get nothing.
        case goAwayAfterAccepted(Int, Reason)
    }

    public struct Fault: Sendable {
        public var action: Action
        public var match: Match
        public var remaining: Int

        public init(action: Action, count: Int = 1, match: Match = Match()) {
            self.action = action
            self.match = match
            remaining = count
        }

        /// The next `count` matching requests get `reason`.
        public init(reason: Reason, count: Int, deviceToken: String? = nil) {
            self.init(action: .answer(reason), count: count, match: Match(deviceToken: deviceToken))
        }
    }

    /// What the plan holds, behind one lock.
    private struct State {
        var faults: [Fault] = []
        var acceptedSinceArmed: [Int] = []
        var staleAfterIdle: Double?
        var lowerStreamsAfterRejection = false
        var holdSettings: Double?

        var hasConnectionRules: Bool { staleAfterIdle != nil || lowerStreamsAfterRejection }

        /// Uses up one of the fault's count, removing it at none.
        mutating func consume(_ index: Int) {
            faults[index].remaining -= 1
            if faults[index].remaining <= 0 {
                faults.remove(at: index)
                acceptedSinceArmed.remove(at: index)
            }
        }
    }

    private let state = Mutex(State())
    /// How many faults are armed, readable without the lock: most requests meet an empty plan.
    private let armed = Atomic<Int>(0)
    /// Whether either connection rule is set, readable without the lock: every request asks.
    private let hasConnectionRules = Atomic<Bool>(false)

    /// A connection idle longer than this (world time) answers 500 InternalServerError to every
    /// request until the provider opens a new one.
    public var staleAfterIdle: Double? {
        get { hasConnectionRules.load(ordering: .acquiring) ? locked { $0.staleAfterIdle } : nil }
        set { locked { $0.staleAfterIdle = newValue } }
    }
    /// After a rejected push, MAX_CONCURRENT_STREAMS drops to 1 until the next accepted one (O, rdar 27870881).
    public var lowerStreamsAfterRejection: Bool {
        get { hasConnectionRules.load(ordering: .acquiring) ? locked { $0.lowerStreamsAfterRejection } : false }
        set { locked { $0.lowerStreamsAfterRejection = newValue } }
    }

    /// How long a new connection's SETTINGS wait (`hold-settings`); read once per connection.
    public var holdSettings: Double? {
        get { locked { $0.holdSettings } }
        set { locked { $0.holdSettings = newValue } }
    }

    public init() {}

    /// Runs `body` on the state under the lock, then refreshes the two hints from it.
    private func locked<T: Sendable>(_ body: (inout State) -> T) -> T {
        state.withLock { state in
            let result = body(&state)
            armed.store(state.faults.count, ordering: .releasing)
            hasConnectionRules.store(state.hasConnectionRules, ordering: .releasing)
            return result
        }
    }

    /// Faults armed at once: every request is matched against them in turn.
    public static let maximumArmed = 1000

    /// How many faults are armed.
    public var count: Int { armed.load(ordering: .acquiring) }

    public func arm(_ fault: Fault) {
        var fault = fault
        fault.match.deviceToken = fault.match.deviceToken?.lowercased()  // compared lower-cased
        locked {
            $0.faults.append(fault)
            $0.acceptedSinceArmed.append(0)
        }
    }

    public func disarmAll() {
        locked { $0 = State() }
    }

    /// What a request meets of the plan before it is decided: whether any fault is armed (then the
    /// connection asks `take` and `noteAccepted`) and the two connection rules. Read once per request,
    /// without the lock when no rule is set.
    struct Rules: Equatable {
        var hasArmedFaults = false
        var staleAfterIdle: Double?
        var lowerStreamsAfterRejection = false
    }

    var rules: Rules {
        let hasArmedFaults = armed.load(ordering: .acquiring) > 0
        guard hasConnectionRules.load(ordering: .acquiring) else { return Rules(hasArmedFaults: hasArmedFaults) }
        return locked {
            Rules(
                hasArmedFaults: hasArmedFaults, staleAfterIdle: $0.staleAfterIdle,
                lowerStreamsAfterRejection: $0.lowerStreamsAfterRejection)
        }
    }

    /// The request-level fault for this request, if any; uses up one of its count.
    func take(token: String?, connection: UInt64, at now: Double) -> Action? {
        if armed.load(ordering: .acquiring) == 0 { return nil }
        let token = token?.lowercased()
        return locked { state in
            guard
                let index = state.faults.firstIndex(where: {
                    if case .goAwayAfterAccepted = $0.action { return false }
                    return $0.match.matches(token: token, connection: connection, at: now)
                })
            else { return nil }
            let action = state.faults[index].action
            state.consume(index)
            return action
        }
    }

    /// Counts an accepted push; returns the GOAWAY reason when a `goAwayAfterAccepted` fault fires.
    func noteAccepted(token: String?, connection: UInt64, at now: Double) -> Reason? {
        if armed.load(ordering: .acquiring) == 0 { return nil }
        let token = token?.lowercased()
        return locked { state in
            for index in state.faults.indices {
                guard case .goAwayAfterAccepted(let limit, let reason) = state.faults[index].action,
                    state.faults[index].match.matches(token: token, connection: connection, at: now)
                else { continue }
                state.acceptedSinceArmed[index] += 1
                if state.acceptedSinceArmed[index] >= limit {
                    state.consume(index)
                    return reason
                }
            }
            return nil
        }
    }

    public var isEmpty: Bool { locked { $0.faults.isEmpty } }

    /// Arms what a spec says, for the faults that live in the plan; false for those the server
    /// must carry out (a certificate switch).
    func arm(_ spec: FaultSpec) -> Bool {
        switch spec.kind {
        case .answer(let reason): arm(Fault(action: .answer(reason), count: spec.count, match: spec.match))
        case .drop: arm(Fault(action: .drop, count: spec.count, match: spec.match))
        case .delay(let seconds): arm(Fault(action: .delay(seconds), count: spec.count, match: spec.match))
        case .goAway(let after, let reason):
            arm(Fault(action: .goAwayAfterAccepted(after, reason), count: 1, match: spec.match))
        case .staleConnections(let idle): staleAfterIdle = idle
        case .lowerStreamsAfterRejection(let on): lowerStreamsAfterRejection = on
        case .holdSettings(let seconds): holdSettings = seconds > 0 ? seconds : nil
        case .untrustedServerCertificate: return false
        }
        return true
    }
}

extension FaultSpec.Match {
    /// `token` lower-cased, as an armed fault's token is.
    func matches(token: String?, connection: UInt64, at now: Double) -> Bool {
        (deviceToken == nil || deviceToken == token)
            && (self.connection == nil || self.connection == connection)
            && (from.map { now >= $0 } ?? true) && (until.map { now < $0 } ?? true)
    }
}
