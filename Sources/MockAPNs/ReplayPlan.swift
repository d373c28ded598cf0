import APNs
import Foundation
import Glibc

/// Serves a recorded run's answers back, in order (`ringside replay`): the i-th request gets the
/// i-th recorded answer when it matches the i-th recorded request; the first request that differs is
/// kept for the report, and from there on the rules answer.
/// Unchecked Sendable: `seen`, `difference` and `arrivals` are read and written under `lock` (`exchanges` is a
/// `let`); the public `difference` getter is unlocked, read by `ringside replay` only after the server stopped.
public final class ReplayPlan: @unchecked Sendable {
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

        /// The recorded 410's `timestamp` moved to the replay's time: it says when the token stopped
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

    private let lock = NSLock()
    private let exchanges: [Exchange]
    /// Requests seen so far.
    private var seen = 0
    public private(set) var difference: Difference?
    /// When the request matched with each recorded exchange arrived (wall clock, seconds); nil while
    /// none has.
    private var arrivals: [Double?]

    public init(exchanges: [Exchange]) {
        self.exchanges = exchanges
        arrivals = Array(repeating: nil, count: exchanges.count)
    }

    /// Reads the `push` lines of a JSONL transcript.
    /// Reads a transcript event by event (a line at a time: a million events need no more memory
    /// than their exchanges). A line that is not UTF-8 or not JSON is an error naming the file, the
    /// line and the event; a last line cut short (a crash while writing it) is left out.
    public static func load(transcript path: String) throws -> ReplayPlan {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw TranscriptError(description: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw TranscriptError(description: "\(path) is not a regular file (a transcript is a file of JSON lines)")
        }
        guard let file = fopen(path, "r") else {
            throw TranscriptError(description: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var exchanges: [Exchange] = []
        var number = 0
        /// One line's bytes; `complete` when its line feed was read (not the one a crash cut short).
        func take(_ bytes: ArraySlice<UInt8>, complete: Bool) throws -> Bool {
            number += 1
            guard let line = String(validating: bytes, as: UTF8.self) else {
                if !complete { return false }
                throw TranscriptError(description: "\(path):\(number): not valid UTF-8 (event \(number))")
            }
            if line.isEmpty { return true }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                if !complete { return false }  // the line being written when the run stopped
                throw TranscriptError(description: "\(path):\(number): not a JSON object (event \(number))")
            }
            if let exchange = exchange(object) { exchanges.append(exchange) }
            return true
        }
        // Read in chunks, a line at a time, never holding more than `longestLine` of one line.
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count == 0 { break }
            var start = 0
            for index in 0..<count where chunk[index] == UInt8(ascii: "\n") {
                pending += chunk[start..<index]
                _ = try take(pending[...], complete: true)
                pending.removeAll(keepingCapacity: true)
                start = index + 1
            }
            pending += chunk[start..<count]
            guard pending.count <= longestLine else {
                throw TranscriptError(
                    description: "\(path):\(number + 1): a line longer than \(longestLine) bytes (event \(number + 1))")
            }
        }
        if !pending.isEmpty { _ = try take(pending[...], complete: false) }
        return ReplayPlan(exchanges: exchanges)
    }

    /// The longest transcript line read: far above any event the mock writes (a request keeps 1 KB of
    /// each of at most 32 extra headers and a 5 KB payload).
    public static let longestLine = 4 << 20

    /// Why a transcript could not be read, naming the file and the line.
    public struct TranscriptError: Error, CustomStringConvertible {
        public let description: String
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
    /// first recorded one not yet answered that has the same fields; the first request that matches
    /// none is the difference, compared with the first recorded one still open.
    func answer(for request: PushRequest) -> Exchange? {
        lock.lock()
        defer { lock.unlock() }
        guard difference == nil else { return nil }
        seen += 1
        let now = Self.fields(request)
        func matches(_ exchange: Exchange) -> Bool {
            Self.compared.allSatisfy { Self.same($0, exchange.request[$0], now[$0]) }
        }
        guard let index = exchanges.indices.first(where: { arrivals[$0] == nil && matches(exchanges[$0]) }) else {
            guard let open = exchanges.indices.first(where: { arrivals[$0] == nil }) else {
                difference = Difference(
                    number: seen, field: "request", recorded: "no request", now: request.path ?? "?")
                return nil
            }
            let recorded = exchanges[open]
            let field = Self.compared.first { !Self.same($0, recorded.request[$0], now[$0]) } ?? "request"
            difference = Difference(
                number: seen, field: field, recorded: recorded.request[field] ?? "none", now: now[field] ?? "none")
            return nil
        }
        arrivals[index] = Date().timeIntervalSince1970
        return exchanges[index]
    }

    /// A request the recording had accepted that the rules refuse now (its JWT, say): a difference.
    func noteRefused(_ request: PushRequest, reason: Reason) {
        lock.lock()
        defer { lock.unlock() }
        guard difference == nil else { return }
        difference = Difference(number: seen, field: "answer", recorded: "200", now: "\(reason.status) \(reason.wire)")
    }

    /// Retries (requests after a 429 or 5xx answer) whose wait differs from the recording by more
    /// than half and more than 20 ms (the runner caps the built-in provider's waits at 50 ms): back-off
    /// that changed even where the requests did not.
    public var timingChanges: [TimingChange] {
        lock.lock()
        defer { lock.unlock() }
        var changes: [TimingChange] = []
        for index in arrivals.indices.dropFirst() {
            let before = exchanges[index - 1]
            guard before.status == 429 || before.status >= 500, let then = exchanges[index].wallTime,
                let thenBefore = before.wallTime, let arrived = arrivals[index], let arrivedBefore = arrivals[index - 1]
            else { continue }
            let recorded = then - thenBefore
            let now = arrived - arrivedBefore
            if abs(now - recorded) > 0.02, now < recorded / 2 || now > recorded * 2 {
                changes.append(
                    TimingChange(
                        number: index + 1, after: "\(before.status) \(before.reason?.wire ?? "")", recorded: recorded,
                        now: now))
            }
        }
        return changes
    }

    /// Recorded requests the run did not make.
    public var missing: Int {
        lock.lock()
        defer { lock.unlock() }
        return difference == nil ? arrivals.filter { $0 == nil }.count : 0
    }
}
