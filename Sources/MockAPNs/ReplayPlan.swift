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
                    timestamp: (object["timestamp"] as? NSNumber)?.int64Value, apnsId: object["apnsId"] as? String))
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
        return recorded
    }

    /// Recorded requests the run did not make.
    public var missing: Int {
        lock.lock()
        defer { lock.unlock() }
        return difference == nil ? exchanges.count - next : 0
    }
}
