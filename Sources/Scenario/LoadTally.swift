import APNs
import Foundation
import MockAPNs
import Synchronization
import World

/// A load's figures kept as it runs (issue 48, point 6): each call placed, each answer of the mock
/// and each push's outcome counted as it happens, so that the status shown every second, the
/// verdict and the per-second series read counts, not every push so far. A call is kept only until
/// it rings (then it is a count and a latency): a long steady load holds its calls in flight, not
/// its history, and the world and the recording may forget old pushes (`Recording cut`).
final class LoadTally: MockObserver, Sendable {
    /// A call placed that has not rung (yet): in flight, or missed.
    struct Waiting {
        var order: Int
        var callee: Int
        var placedAt: Double
        var trait: String?
        /// The outcome of its latest push that ended without a ring, with its story.
        var kind: String?
        var reason: String?
        var story: String?
    }

    private struct State {
        var waiting: [CallKey: Waiting] = [:]
        var placed = 0
        var reachable = 0
        var rang = 0
        /// Ring latencies, in the order the calls rang.
        var latencies: [Double] = []
        var requests = 0
        var throttled = 0
        var answers: [Int: Int] = [:]
        var connections = 0
        /// When APNs answered 410 for each token (world time).
        var deadSince: [UInt64: Double] = [:]
        var deadTokenPushes = 0
        /// When the latest call to each callee was placed (world time), by the population's index.
        var lastPlaced: [Double]
        /// When APNs first answered 410 for a callee's token, the call whose push it answered, and
        /// when the provider was told: when it was done with that call (world time).
        var deadCallee: [Int32: (since: Double, call: CallKey?, told: Double?)] = [:]
        var series = SeriesBuilder()
    }

    private let state: Mutex<State>
    /// Each registered token's callee (by its first 8 bytes), for the 410 rule.
    private let callees: [UInt64: Int32]
    /// Where the app reads the call id in a payload (the scenario's `call-id-path`).
    private let callPaths: CallPaths?

    init(population: Int, tokens: [UInt64: Int32], callPaths: CallPaths? = nil) {
        state = Mutex(State(lastPlaced: Array(repeating: -.infinity, count: population)))
        callees = tokens
        self.callPaths = callPaths
    }

    /// The first 8 bytes of a token in hex: a key for it that takes no string.
    static func key(_ hex: String) -> UInt64 {
        var key: UInt64 = 0
        var count = 0
        for byte in hex.utf8 {
            guard count < 16 else { break }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return UInt64(hex.hashValue.magnitude)
            }
            key = key << 4 | UInt64(nibble)
            count += 1
        }
        return key
    }

    /// Connections opened in the scenario before the load: `connections-at-most` counts them.
    func connectionsBefore(_ count: Int) { state.withLock { $0.connections += count } }

    /// The load's calls begin at `time` (world time): its second 0. Counted from the first call's
    /// stamp instead, a first call stamped a few milliseconds late (a busy machine) moved the
    /// calls due on a second's boundary into the second before (CI: 9, 8, 7 calls a second for 8).
    func began(at time: Double) { state.withLock { $0.series.begin(at: time) } }

    /// Calls the load placed.
    func placed(_ calls: [LoadRun.Call]) {
        state.withLock { state in
            for call in calls {
                state.waiting[call.key] = Waiting(
                    order: state.placed, callee: call.callee, placedAt: call.placedAt, trait: call.trait)
                state.placed += 1
                if call.trait == nil { state.reachable += 1 }
                if state.lastPlaced.indices.contains(call.callee) { state.lastPlaced[call.callee] = call.placedAt }
                state.series.placed(at: call.placedAt)
            }
        }
    }

    var keepsEvents: Bool { false }
    func observe(_ event: consuming MockEvent) { read(event) }

    func read(_ event: borrowing MockEvent) {
        switch event {
        case .push(let record): answered(record)
        case .outcome(let fate): ended(fate)
        case .connectionOpened(_, _, _, _, let at):
            state.withLock { state in
                state.connections += 1
                state.series.opened(at: at.world)
            }
        default: break
        }
    }

    /// An answer of the mock: counted, and a request to a token after its 410 judged: it counts
    /// when the call it is for was placed after the provider was told (`told`). A call placed
    /// before — while the provider was still reading the 410, or pushing several calls at once — is
    /// a race it cannot win, not a dead token kept. A token of no callee counts from its 410.
    private func answered(_ record: PushRecord) {
        state.withLock { state in
            state.requests += 1
            state.answers[record.status, default: 0] += 1
            if record.status == 429 { state.throttled += 1 }
            state.series.answered(record.status, at: record.at.world)
            // The token and its callee only for the 410 rule: a 410, or once a token was answered
            // 410 (reading every push's token was a twentieth of a load's work on the mock's threads).
            guard record.status == 410 || !state.deadSince.isEmpty else { return }
            let key = Self.key(record.request.deviceToken ?? "")
            let callee = callees[key]
            let answeredAt =
                record.at.world + max(0, (record.answeredAt ?? record.at.wall) - record.at.wall)
            // The call a request is for, read from its payload only when it matters: a 410, or a
            // request to a token already answered 410.
            let call =
                record.status == 410 || state.deadSince[key] != nil
                ? CallInfo(body: record.request.body, paths: callPaths).uuid.map(CallKey.init) : nil
            if let since = state.deadSince[key], record.at.world >= since {
                if let callee {
                    // The request's own call when its payload names one of the load's, else the
                    // latest call to its phone.
                    let placedAt = call.flatMap { state.waiting[$0]?.placedAt } ?? state.lastPlaced[Int(callee)]
                    if let told = state.deadCallee[callee]?.told, placedAt > told, placedAt <= record.at.world {
                        state.deadTokenPushes += 1
                    }
                } else {
                    state.deadTokenPushes += 1
                }
            }
            if record.status == 410, state.deadSince[key] == nil {
                state.deadSince[key] = answeredAt
                if let callee, state.deadCallee[callee] == nil { state.deadCallee[callee] = (answeredAt, call, nil) }
            }
        }
    }

    /// The provider was done with these calls (its answer to them came back) at `time`: done with
    /// the call whose push APNs answered 410, it has been told (a call it did not name: done with
    /// any call to that callee after the answer).
    func answered(_ calls: [LoadRun.Call], at time: Double) {
        state.withLock { state in
            for call in calls {
                let callee = Int32(truncatingIfNeeded: call.callee)
                guard let dead = state.deadCallee[callee], dead.told == nil, time >= dead.since,
                    dead.call == nil || dead.call == call.key
                else { continue }
                state.deadCallee[callee] = (dead.since, dead.call, time)
            }
        }
    }

    /// A push of a call ended: a ring settles the call; anything else is its latest story.
    private func ended(_ fate: borrowing PushFate) {
        guard fate.outcome.isFinal, let key = fate.callUUID.map(CallKey.init) else { return }
        let rang: Bool
        if case .rang = fate.outcome { rang = true } else { rang = false }
        let finishedAt = fate.finishedAt ?? fate.sentAt
        let story = rang ? nil : (fate.explanation.isEmpty ? fate.outcome.kind : fate.explanation)
        let kind = fate.outcome.kind
        let reason = fate.outcome.reason
        state.withLock { state in
            if rang {
                // One look-up: a ring settles the call.
                guard let call = state.waiting.removeValue(forKey: key) else { return }
                state.rang += 1
                let latency = max(0, finishedAt - call.placedAt)
                state.latencies.append(latency)
                state.series.rang(latency, at: finishedAt)
            } else {
                guard let index = state.waiting.index(forKey: key) else { return }
                state.waiting.values[index].kind = kind
                state.waiting.values[index].reason = reason
                state.waiting.values[index].story = story
                state.series.missed(kind, at: finishedAt)
            }
        }
    }

    /// The figures so far (or at the end). What is read under the lock is copied; the sorting is
    /// done after it: sorting every latency so far under the lock, for the status each second,
    /// held the mock's thread and the world's that long (a load's 600,000th call: tens of ms).
    func figures() -> LoadFigures {
        let (counts, latencies, answers, waiting) = state.withLock { state in
            (
                LoadFigures(
                    calls: state.placed, reachable: state.reachable, rang: state.rang, latencies: [],
                    deadTokenPushes: state.deadTokenPushes, throttled: state.throttled,
                    connections: state.connections, requests: state.requests),
                state.latencies, state.answers, state.waiting
            )
        }
        var figures = counts
        figures.latencies = latencies.sorted()
        figures.answers = answers.map { ($0.key, $0.value) }.sorted { $0.count > $1.count }
        figures.miss(waiting.map { ($0.key.description, $0.value) }.sorted { $0.call.order < $1.call.order })
        return figures
    }

    /// The load second by second, for the report and `--load-csv`.
    func series(label: String, summary: String) -> LoadSeries {
        state.withLock { LoadSeries(label: label, seconds: $0.series.finished(), summary: summary) }
    }
}

/// A load's seconds as they pass (`LoadSeries.Second`), from its first call: second `n` counts
/// what happened from `n` to `n + 1` seconds after it (world time). A second's latencies are kept
/// only until it is a few seconds old, then only their percentiles.
struct SeriesBuilder {
    private var start: Double?
    private var seconds: [LoadSeries.Second] = []
    /// Seconds before this one have their percentiles worked out and their latencies let go.
    private var summarised = 0
    /// The longest load drawn (an hour): a second beyond it is not counted.
    static let longest = 3600

    private mutating func index(_ time: Double) -> Int? {
        guard let start else { return nil }
        let index = Int((time - start).rounded(.down))
        guard index >= 0, index < Self.longest else { return nil }
        while seconds.count <= index { seconds.append(LoadSeries.Second()) }
        // A ring counts in the second it rang, and rings come in about the order of time.
        while summarised < index - 2 {
            seconds[summarised].summarise()
            summarised += 1
        }
        return index
    }

    mutating func begin(at time: Double) { start = time }

    mutating func placed(at time: Double) {
        if start == nil { start = time }
        if let index = index(time) { seconds[index].placed += 1 }
    }

    mutating func rang(_ latency: Double, at time: Double) {
        guard let index = index(time) else { return }
        seconds[index].rang += 1
        seconds[index].add(latency)
    }

    mutating func missed(_ kind: String, at time: Double) {
        if let index = index(time) { seconds[index].missed[kind, default: 0] += 1 }
    }

    mutating func answered(_ status: Int, at time: Double) {
        if let index = index(time) { seconds[index].answers[status, default: 0] += 1 }
    }

    mutating func opened(at time: Double) {
        if let index = index(time) { seconds[index].connections += 1 }
    }

    /// Every second, its percentiles worked out.
    func finished() -> [LoadSeries.Second] {
        seconds.map { second in
            var second = second
            second.summarise()
            return second
        }
    }
}
