import APNs
import Foundation

/// Serves a recorded run's answers back, in order (`ringside replay`): the i-th request gets the
/// i-th recorded answer when it matches the i-th recorded request; the first request that differs is
/// kept for the report, and from there on the rules answer.
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

    /// The request fields compared: what the provider chose, not ids or signatures.
    static let compared = [
        ":method", ":path", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
    ]

    private let lock = NSLock()
    private let exchanges: [Exchange]
    private var next = 0
    public private(set) var difference: Difference?
    /// When each replayed request arrived (wall clock, seconds).
    private var arrivals: [Double] = []

    public init(exchanges: [Exchange]) { self.exchanges = exchanges }

    /// Reads the `push` lines of a JSONL transcript.
    public static func load(transcript path: String) throws -> ReplayPlan {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var exchanges: [Exchange] = []
        for line in text.split(separator: "\n") {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                object["event"] as? String == "push", let request = object["request"] as? [String: Any]
            else { continue }
            var fields: [String: String] = [:]
            for key in compared { fields[key] = request[key] as? String }
            exchanges.append(
                Exchange(
                    request: fields, status: object["status"] as? Int ?? 0,
                    reason: (object["reason"] as? String).flatMap(Reason.init(wire:)),
                    timestamp: (object["timestamp"] as? NSNumber)?.int64Value, apnsId: object["apnsId"] as? String,
                    wallTime: (object["wallTime"] as? NSNumber).map { $0.doubleValue / 1000 }))
        }
        return ReplayPlan(exchanges: exchanges)
    }

    /// The recorded answer for this request, or nil once the run has diverged.
    func answer(for request: PushRequest) -> Exchange? {
        lock.lock()
        defer { lock.unlock() }
        guard difference == nil else { return nil }
        let number = next + 1
        guard next < exchanges.count else {
            difference = Difference(number: number, field: "request", recorded: "no request", now: request.path ?? "?")
            return nil
        }
        let recorded = exchanges[next]
        let now: [String: String?] = [
            ":method": request.method, ":path": request.path, "apns-topic": request.topic,
            "apns-push-type": request.pushType,
            "apns-priority": request.priority, "apns-expiration": request.expiration,
            "apns-collapse-id": request.collapseId,
        ]
        for field in Self.compared where recorded.request[field] != (now[field] ?? nil) {
            // Tokens and expirations that depend on the clock are compared as they were sent.
            difference = Difference(
                number: number, field: field, recorded: recorded.request[field] ?? "none",
                now: (now[field] ?? nil) ?? "none")
            return nil
        }
        next += 1
        arrivals.append(Date().timeIntervalSince1970)
        return recorded
    }

    /// Retries (requests after a 429 or 5xx answer) whose wait differs from the recording by more
    /// than half and more than 50 ms: back-off that changed even where the requests did not.
    public var timingChanges: [TimingChange] {
        lock.lock()
        defer { lock.unlock() }
        var changes: [TimingChange] = []
        for index in arrivals.indices.dropFirst() {
            let before = exchanges[index - 1]
            guard before.status == 429 || before.status >= 500, let then = exchanges[index].wallTime,
                let thenBefore = before.wallTime
            else { continue }
            let recorded = then - thenBefore
            let now = arrivals[index] - arrivals[index - 1]
            if abs(now - recorded) > 0.05, now < recorded / 2 || now > recorded * 2 {
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
        return difference == nil ? exchanges.count - next : 0
    }
}
