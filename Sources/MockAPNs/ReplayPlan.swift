import APNs
import Foundation
import Synchronization

/// Serves a recorded run's answers back, in order (`ringside replay`): the i-th request gets the
/// i-th recorded answer when it matches the i-th recorded request; the first request that differs is
/// kept for the report, and from there on the rules answer.
/// A recorded transcript is read as the requests arrive, so a replay's memory does not grow with the
/// transcript's length.
public final class ReplayPlan: Sendable {
    /// One recorded exchange from a transcript's `push` line.
    public struct Exchange: Sendable {
        public var request: [String: String]
        public var status: Int
        public var reason: Reason?
        public var timestamp: Int64?
        public var apnsId: String?
        /// When the recorded request arrived (wall clock, seconds), if the transcript says.
        public var wallTime: Double?
        /// When it arrived on the world clock (seconds), if the transcript says.
        public var worldTime: Double? = nil
        /// Whether the recorded run judged the request by its rules (its JWT among them): false for an
        /// answer an armed fault gave first.
        public var judgedByTheRules = true
        /// The `voip-lint` rule that refused it, from the line's `lint` (absent in older transcripts and
        /// for other refusals; a short name as older transcripts wrote it is read too).
        public var lint: LintRule? = nil

        /// The recorded 410's `timestamp` moved to the replay's time: it says when the device token stopped
        /// being valid relative to the request, and a provider compares it with when it registered
        /// the token in this run (an old time would read as "registered again since").
        public func timestamp(forRequestAt now: Double) -> Int64? {
            guard let timestamp, let worldTime else { return timestamp }
            let shifted = Double(timestamp) + (now - worldTime) * 1000
            return shifted.isFinite && abs(shifted) < 1e15 ? Int64(shifted) : timestamp
        }
    }

    /// A retry that came sooner or later than in the recording: a change of back-off.
    public struct TimingChange: Sendable, CustomStringConvertible {
        public var number: Int
        /// The recorded answer before it (`503 ServiceUnavailable`).
        public var after: String
        public var recorded: Double
        public var now: Double
        public var description: String {
            String(
                format: "request %d (a retry after %@) came %.3f s after the request before it; recorded: %.3f s (%@)",
                number, after, now, recorded, now < recorded ? "sooner" : "later")
        }
    }

    /// The first request that differs from the recording.
    public struct Difference: Sendable, CustomStringConvertible {
        public var number: Int
        public var field: String
        public var recorded: String
        public var now: String
        public var description: String {
            "request \(number) differs: \(field) was <\(recorded)>, now <\(now)>"
        }
    }

    /// The request fields compared: what the provider chose, not ids or signatures (`authentication`
    /// is whether a JWT was sent; the payload's call ids come from the scenario's seed).
    static let compared = [
        ":method", ":path", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
        "authentication", "body",
    ]

    /// An expiration as compared: 0 and a time at or before arrival mean the same (one attempt, not
    /// stored), so a client that sends "now" for 0 (aioapns) replays without a difference.
    /// A time in the future is compared as seconds after arrival: a provider that stores a push for two
    /// minutes writes another number in every run.
    static func expiration(_ text: String?, at arrival: Double) -> String? {
        guard let text, let value = Int64(text), value < Int64.max / 2 else { return text }
        if value == 0 || Double(value) <= arrival { return "0 (or a time already past)" }
        return "\(value - Int64(arrival.rounded(.down))) s after arrival"
    }

    /// Whether a field is the same in the recording and now: an expiration up to 2 s off is (whole
    /// seconds, read on two clocks a moment apart).
    static func same(_ field: String, _ recorded: String?, _ now: String?) -> Bool {
        guard field == "apns-expiration", let recorded, let now, recorded.hasSuffix(" s after arrival"),
            now.hasSuffix(" s after arrival"), let a = Int64(recorded.prefix { $0 != " " }),
            let b = Int64(now.prefix { $0 != " " })
        else { return recorded == now }
        return abs(a - b) <= 2
    }

    /// The compared fields of a request as the mock sees it now.
    static func fields(_ request: PushRequest) -> [String: String] {
        var fields: [String: String] = [:]
        fields[":method"] = request.method
        fields[":path"] = request.path
        fields["apns-topic"] = request.topic
        fields["apns-push-type"] = request.pushType
        fields["apns-priority"] = request.priority
        fields["apns-expiration"] = expiration(request.expiration, at: Date().timeIntervalSince1970)
        fields["apns-collapse-id"] = request.collapseId
        fields["authentication"] = request.authorization == nil ? "no JWT" : "JWT"
        if request.bodyLength <= 5120 { fields["body"] = String(decoding: request.body, as: UTF8.self) }
        return fields
    }

    /// Where the recorded exchanges come from: a list in memory (tests, the fuzzer) or a transcript
    /// read as the run goes.
    enum Source {
        case memory([Exchange], next: Int)
        case file(TranscriptReader)

        mutating func next() throws -> Exchange? {
            switch self {
            case .memory(let exchanges, let next):
                guard next < exchanges.count else { return nil }
                self = .memory(exchanges, next: next + 1)
                return exchanges[next]
            case .file(let reader):
                return try reader.nextExchange()
            }
        }
    }

    /// What the replay knows: the recorded exchanges read so far and not yet all answered (`window`,
    /// from the first one still open), and what was learnt from those already let go.
    struct State {
        var source: Source
        /// How many exchanges the recording holds (counted when it was loaded).
        let total: Int
        /// Recorded exchanges from `base` on, with when the request matched with each arrived (wall
        /// clock, seconds); entries before `head` are let go.
        var window: [(exchange: Exchange, arrival: Double?, answered: Double?)] = []
        var head = 0
        /// Entries of the window not yet answered: at most `lookahead`.
        var open = 0
        /// Exchanges read from the source so far.
        var read = 0
        /// Why the transcript could not be read again during the run (it changed since it was loaded).
        var readError: String?
        /// The recorded index of `window[head]`.
        var base = 0
        /// The exchange just before `base` (answered) and when it was answered: the retry after it is
        /// timed against it.
        var previous: (exchange: Exchange, arrival: Double, answered: Double)?
        var matched = 0
        /// Requests seen so far.
        var seen = 0
        var difference: Difference?
        var timingChanges: [TimingChange] = []
    }

    /// How many recorded requests not yet answered a request is looked for among (read ahead of the
    /// requests, so that reading is not on an answer's way): far more than the streams a provider
    /// keeps open at once (APNs allows 1,000 per connection), and it bounds the memory a replay holds
    /// whatever the transcript's length.
    public static let lookahead = 10_000

    private let state: Mutex<State>

    public convenience init(exchanges: [Exchange]) {
        self.init(source: .memory(exchanges, next: 0), total: exchanges.count)
    }

    init(source: sending Source, total: Int) {
        var state = State(source: source, total: total)
        Self.readAhead(&state)
        self.state = Mutex(state)
    }

    /// Reads recorded exchanges until `lookahead` are open or the recording ends. An error means the
    /// transcript changed since `load` read it whole: kept, and the run reports it.
    private static func readAhead(_ state: inout State) {
        while state.open < lookahead, state.readError == nil {
            do {
                guard let next = try state.source.next() else {
                    if state.read < state.total {
                        state.readError = "it ended after \(state.read) of its \(state.total) requests"
                    }
                    return
                }
                state.read += 1
                guard state.read <= state.total else {
                    state.readError = "it holds more than the \(state.total) requests it held when loaded"
                    return
                }
                state.window.append((next, nil, nil))
                state.open += 1
            } catch {
                state.readError = "\(error)"
            }
        }
    }

    /// Why the transcript could not be read to its end during the run (it changed since it was
    /// loaded), if it could not: the replay's verdict does not stand.
    public var readError: String? { state.withLock { $0.readError } }

    /// Recorded exchanges not yet answered held in memory now: at most `lookahead`.
    var held: Int { state.withLock { $0.open } }

    /// The first request that differs, once one has.
    public var difference: Difference? { state.withLock { $0.difference } }

    /// Opens a JSONL transcript for replay. The file is read twice, a line at a time, never whole:
    /// once now, to count its exchanges and to refuse it before the run if a line is not UTF-8 or not
    /// JSON (an error naming the file, the line and the event); then as the provider's requests
    /// arrive, never holding more than `lookahead` exchanges. A last line cut short (a crash while
    /// writing it) is left out.
    public static func load(transcript path: String) throws -> ReplayPlan {
        let counting = try TranscriptReader(path: path)
        var total = 0
        while try counting.nextExchange() != nil { total += 1 }
        return ReplayPlan(source: .file(try TranscriptReader(path: path)), total: total)
    }

    /// The longest transcript line read: far above any event the mock writes (a request keeps 1 KB of
    /// each of at most 32 extra headers and a 5 KB payload).
    public static let longestLine = 4 << 20

    /// Why a transcript could not be read, naming the file and the line.
    public struct TranscriptError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A transcript's `push` events, one at a time, read in 64 KiB chunks.
    final class TranscriptReader {
        let path: String
        private let file: UnsafeMutablePointer<FILE>
        private var number = 0
        private var pending: [UInt8] = []
        private var chunk = [UInt8](repeating: 0, count: 1 << 16)
        private var chunkEnd = 0
        private var chunkStart = 0
        private var ended = false

        init(path: String) throws {
            self.path = path
            var status = stat()
            guard stat(path, &status) == 0 else {
                throw TranscriptError(description: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw TranscriptError(
                    description: "\(path) is not a regular file (a transcript is a file of JSON lines)")
            }
            guard let file = fopen(path, "r") else {
                throw TranscriptError(description: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            self.file = file
        }

        deinit { fclose(file) }

        /// The next `push` event, or nil at the end of the file.
        func nextExchange() throws -> Exchange? {
            while let (bytes, complete) = try nextLine() {
                number += 1
                guard let line = String(validating: bytes, as: UTF8.self) else {
                    if !complete { return nil }
                    throw TranscriptError(description: "\(path):\(number): not valid UTF-8 (event \(number))")
                }
                if line.isEmpty { continue }
                guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                else {
                    if !complete { return nil }  // the line being written when the run stopped
                    throw TranscriptError(description: "\(path):\(number): not a JSON object (event \(number))")
                }
                if let exchange = ReplayPlan.exchange(object) { return exchange }
            }
            return nil
        }

        /// The next line's bytes; `complete` when its line feed was read (not the one a crash cut short).
        private func nextLine() throws -> (ArraySlice<UInt8>, complete: Bool)? {
            pending.removeAll(keepingCapacity: true)
            while !ended {
                if chunkStart == chunkEnd {
                    chunkEnd = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
                    chunkStart = 0
                    if chunkEnd == 0 {
                        ended = true
                        break
                    }
                }
                if let end = chunk[chunkStart..<chunkEnd].firstIndex(of: UInt8(ascii: "\n")) {
                    pending += chunk[chunkStart..<end]
                    chunkStart = end + 1
                    if pending.last == UInt8(ascii: "\r") { pending.removeLast() }  // CR LF ends a line too
                    return (pending[...], true)
                }
                pending += chunk[chunkStart..<chunkEnd]
                chunkStart = chunkEnd
                guard pending.count <= longestLine else {
                    throw TranscriptError(
                        description:
                            "\(path):\(number + 1): a line longer than \(longestLine) bytes (event \(number + 1))")
                }
            }
            return pending.isEmpty ? nil : (pending[...], false)
        }
    }

    /// Reads the `push` lines of a transcript's text; other lines are skipped (the fuzzer's entry).
    public static func parse(transcript text: String) -> ReplayPlan {
        var exchanges: [Exchange] = []
        for line in text.split(separator: "\n") {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                let exchange = exchange(object)
            else { continue }
            exchanges.append(exchange)
        }
        return ReplayPlan(exchanges: exchanges)
    }

    /// A `push` event as an exchange; nil for other events.
    static func exchange(_ object: [String: Any]) -> Exchange? {
        guard object["event"] as? String == "push", let request = object["request"] as? [String: Any] else {
            return nil
        }
        var fields: [String: String] = [:]
        for key in compared { fields[key] = request[key] as? String }
        let arrived = (object["wallTime"] as? NSNumber).map { $0.doubleValue / 1000 }
        fields["apns-expiration"] = expiration(fields["apns-expiration"], at: arrived ?? 0)
        fields["authentication"] = request["authorization"] == nil ? "no JWT" : "JWT"
        return Exchange(
            request: fields, status: object["status"] as? Int ?? 0,
            reason: (object["reason"] as? String).flatMap(Reason.init(wire:)),
            timestamp: (object["timestamp"] as? NSNumber)?.int64Value, apnsId: object["apnsId"] as? String,
            wallTime: (object["wallTime"] as? NSNumber).map { $0.doubleValue / 1000 },
            worldTime: (object["worldTime"] as? NSNumber).map { $0.doubleValue / 1000 },
            judgedByTheRules: (object["fault"] as? String).map {
                !ConnectionStateMachine.answeredBeforeTheRules.contains($0)
            } ?? true, lint: (object["lint"] as? String).flatMap(LintRule.init(name:)))
    }

    /// The recorded answer for this request, or nil once the run has diverged. Requests a provider
    /// sends at once on several streams arrive in any order, so the request is matched with the
    /// first recorded one not yet answered that has the same fields (among the `lookahead` read
    /// ahead); the first request that matches none is the difference, compared with the first
    /// recorded one still open.
    func answer(for request: PushRequest) -> Exchange? {
        let now = Self.fields(request)
        let arrived = Date().timeIntervalSince1970
        return state.withLock { state -> Exchange? in
            guard state.difference == nil else { return nil }
            state.seen += 1
            func matches(_ exchange: Exchange) -> Bool {
                Self.compared.allSatisfy { Self.same($0, exchange.request[$0], now[$0]) }
            }
            guard
                let index = state.window[state.head...].firstIndex(where: { $0.arrival == nil && matches($0.exchange) })
            else {
                guard state.head < state.window.count else {
                    state.difference = Difference(
                        number: state.seen, field: "request", recorded: "no request", now: request.path ?? "?")
                    return nil
                }
                let recorded = state.window[state.head].exchange
                let field = Self.compared.first { !Self.same($0, recorded.request[$0], now[$0]) } ?? "request"
                state.difference = Difference(
                    number: state.seen, field: field, recorded: recorded.request[field] ?? "none",
                    now: now[field] ?? "none")
                return nil
            }
            state.window[index].arrival = arrived
            state.open -= 1
            state.matched += 1
            let exchange = state.window[index].exchange
            Self.readAhead(&state)
            // Answered now, after the reading: a retry is timed from here, so the replay's own work
            // is never counted as the provider's back-off.
            state.window[index].answered = Date().timeIntervalSince1970
            Self.noteTiming(at: index, in: &state)
            while state.head < state.window.count, let arrival = state.window[state.head].arrival {
                let entry = state.window[state.head]
                state.previous = (entry.exchange, arrival, entry.answered ?? arrival)
                state.head += 1
                state.base += 1
            }
            if state.head >= 1024, state.head * 2 >= state.window.count {
                state.window.removeFirst(state.head)
                state.head = 0
            }
            return exchange
        }
    }

    /// Times the retries on either side of the exchange at `index` once both of a pair have been
    /// seen: the wait from the answer before to the request after it.
    private static func noteTiming(at index: Int, in state: inout State) {
        func entry(_ position: Int) -> (exchange: Exchange, arrival: Double, answered: Double)? {
            if position < state.head { return position == state.head - 1 ? state.previous : nil }
            guard position < state.window.count, let arrival = state.window[position].arrival,
                let answered = state.window[position].answered
            else { return nil }
            return (state.window[position].exchange, arrival, answered)
        }
        for (first, second) in [(index - 1, index), (index, index + 1)] {
            guard let before = entry(first), let after = entry(second) else { continue }
            let number = state.base + (second - state.head) + 1
            if let change = timingChange(number: number, before: before, after: after) {
                state.timingChanges.append(change)
            }
        }
    }

    /// A retry (a request after a 429 or 5xx answer) whose wait differs from the recording by more
    /// than half and more than 20 ms (the runner caps the built-in provider's waits at 50 ms): back-off
    /// that changed even where the requests did not. Now the wait runs from the answer to the retry;
    /// in the recording the mock answered at once, so from request to request.
    private static func timingChange(
        number: Int, before: (exchange: Exchange, arrival: Double, answered: Double),
        after: (exchange: Exchange, arrival: Double, answered: Double)
    ) -> TimingChange? {
        guard before.exchange.status == 429 || before.exchange.status >= 500, let then = after.exchange.wallTime,
            let thenBefore = before.exchange.wallTime
        else { return nil }
        let recorded = then - thenBefore
        let now = after.arrival - before.answered
        guard abs(now - recorded) > 0.02, now < recorded / 2 || now > recorded * 2 else { return nil }
        return TimingChange(
            number: number, after: "\(before.exchange.status) \(before.exchange.reason?.wire ?? "")",
            recorded: recorded, now: now)
    }

    /// A request the recording had accepted that the rules refuse now (its JWT, say): a difference.
    func noteRefused(_ request: PushRequest, reason: Reason) {
        state.withLock { state in
            guard state.difference == nil else { return }
            state.difference = Difference(
                number: state.seen, field: "answer", recorded: "200", now: "\(reason.status) \(reason.wire)")
        }
    }

    /// Retries whose wait changed from the recording, in the recording's order.
    public var timingChanges: [TimingChange] {
        state.withLock { $0.timingChanges.sorted { $0.number < $1.number } }
    }

    /// Recorded requests the run did not make.
    public var missing: Int {
        state.withLock { $0.difference == nil ? max(0, $0.total - $0.matched) : 0 }
    }
}
