import APNs
import Foundation
import Synchronization

/// Scripted behaviour armed by a test or a scenario (WireMock-style), consulted before the rules:
/// keyed by device token, by count, by world-time window or by connection.
///
/// A plan is explicit: nothing in the rules knows about it (docs/architecture.md, "Observers watch,
/// they never decide").
/// Unchecked Sendable: `faults`, `acceptedSinceArmed`, `staleAfterIdleValue` and `lowerStreamsValue` are behind
/// `lock`; `armed` and `hasConnectionRules` are `Atomic`s, only hints read before taking `lock`.
public final class FaultPlan: @unchecked Sendable {
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

    private let lock = NSLock()
    private var faults: [Fault] = []
    private var acceptedSinceArmed: [Int] = []
    /// How many faults are armed, readable without the lock: most requests meet an empty plan.
    private let armed = Atomic<Int>(0)
    /// A connection idle longer than this (world time) answers 500 InternalServerError to every
    /// request until the provider opens a new one.
    public var staleAfterIdle: Double? {
        get { hasConnectionRules.load(ordering: .acquiring) ? locked { staleAfterIdleValue } : nil }
        set { locked { staleAfterIdleValue = newValue } }
    }
    private var staleAfterIdleValue: Double? {
        didSet { noteConnectionRules() }
    }
    /// After a rejected push, MAX_CONCURRENT_STREAMS drops to 1 until the next accepted one (O, rdar 27870881).
    public var lowerStreamsAfterRejection: Bool {
        get { hasConnectionRules.load(ordering: .acquiring) ? locked { lowerStreamsValue } : false }
        set { locked { lowerStreamsValue = newValue } }
    }
    private var lowerStreamsValue = false {
        didSet { noteConnectionRules() }
    }
    /// Whether either connection rule is set, readable without the lock: every request asks.
    private let hasConnectionRules = Atomic<Bool>(false)
    private func noteConnectionRules() {
        hasConnectionRules.store(staleAfterIdleValue != nil || lowerStreamsValue, ordering: .releasing)
    }

    public init() {}

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Faults armed at once: every request is matched against them in turn.
    public static let maximumArmed = 1000

    /// How many faults are armed.
    public var count: Int { armed.load(ordering: .acquiring) }

    public func arm(_ fault: Fault) {
        var fault = fault
        fault.match.deviceToken = fault.match.deviceToken?.lowercased()  // compared lower-cased
        locked {
            faults.append(fault)
            acceptedSinceArmed.append(0)
            armed.store(faults.count, ordering: .releasing)
        }
    }

    public func disarmAll() {
        locked {
            faults.removeAll()
            acceptedSinceArmed.removeAll()
            staleAfterIdleValue = nil
            lowerStreamsValue = false
            armed.store(0, ordering: .releasing)
        }
    }

    /// The request-level fault for this request, if any; uses up one of its count.
    func take(token: String?, connection: UInt64, at now: Double) -> Action? {
        if armed.load(ordering: .acquiring) == 0 { return nil }
        let token = token?.lowercased()
        return locked {
            guard
                let index = faults.firstIndex(where: {
                    if case .goAwayAfterAccepted = $0.action { return false }
                    return $0.match.matches(token: token, connection: connection, at: now)
                })
            else { return nil }
            let action = faults[index].action
            consume(index)
            return action
        }
    }

    /// Counts an accepted push; returns the GOAWAY reason when a `goAwayAfterAccepted` fault fires.
    func noteAccepted(token: String?, connection: UInt64, at now: Double) -> Reason? {
        if armed.load(ordering: .acquiring) == 0 { return nil }
        let token = token?.lowercased()
        return locked {
            for index in faults.indices {
                guard case .goAwayAfterAccepted(let limit, let reason) = faults[index].action,
                    faults[index].match.matches(token: token, connection: connection, at: now)
                else { continue }
                acceptedSinceArmed[index] += 1
                if acceptedSinceArmed[index] >= limit {
                    consume(index)
                    return reason
                }
            }
            return nil
        }
    }

    private func consume(_ index: Int) {
        faults[index].remaining -= 1
        if faults[index].remaining <= 0 {
            faults.remove(at: index)
            acceptedSinceArmed.remove(at: index)
            armed.store(faults.count, ordering: .releasing)
        }
    }

    public var isEmpty: Bool { locked { faults.isEmpty } }

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
