import APNs
import Foundation
import Synchronization
import World

/// What the console shows (issue 49): the latest pushes with each header annotated, their phones'
/// stories, and delivery counts by push type and priority over the last minutes, as Apple's Push
/// Notifications Console gives them. Observes the mock from the first time the console is opened
/// (nothing is built for a console nobody looks at). Keeps the latest `kept` events, in order; a
/// page that falls further behind is told how many it missed. Past `shownPerSecond` pushes in a
/// second the rest are counted, not listed: the page summarises a flood and says so.
public final class ConsoleFeed: MockObserver, Sendable {
    static let kept = 500
    static let shownPerSecond = 50
    /// The metrics' buckets: ten seconds each, the last ten minutes.
    static let bucketSeconds = 10.0
    static let buckets = 60

    private struct State {
        var events: [(number: Int, json: String)] = []
        var next = 1
        var second = 0.0
        var shownThisSecond = 0
        /// Pushes counted but not listed (a flood), since the feed began.
        var notListed = 0
        /// Counts by bucket start: "status 200 voip 10" and "outcome rang voip 10" → count.
        var counts: [(start: Double, counts: [String: Int])] = []
        /// The push type and priority of accepted pushes, by apns-id, until their outcome.
        var kinds: [String: String] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public var keepsEvents: Bool { false }
    public func observe(_ event: consuming MockEvent) { read(event) }

    public func read(_ event: borrowing MockEvent) {
        switch event {
        case .push(let record): pushed(record)
        case .outcome(let fate): ended(fate)
        default: break
        }
    }

    private func pushed(_ record: PushRecord) {
        let request = record.request
        let kind = Self.kind(request)
        let now = Date().timeIntervalSince1970
        state.withLock { state in
            count("status \(record.status) \(kind)", at: now, in: &state)
            if record.status == 200 {
                state.kinds[record.apnsId] = kind
                if state.kinds.count > 10_000 { state.kinds.removeAll() }
            }
            if now - state.second >= 1 {
                state.second = now.rounded(.down)
                state.shownThisSecond = 0
            }
            guard state.shownThisSecond < Self.shownPerSecond else {
                state.notListed += 1
                return
            }
            state.shownThisSecond += 1
            append(Self.pushJSON(record), to: &state)
        }
    }

    /// A push's row in the metrics: its push type and priority as APNs knows them, anything else
    /// as "other" (a provider's made-up push types must not grow the counts without bound).
    static func kind(_ request: PushRequest) -> String {
        let type = request.pushType.map { PushType(rawValue: $0) == nil ? "other" : $0 } ?? "none"
        let priority = request.priority.map { ["10", "5", "1"].contains($0) ? $0 : "other" } ?? "10"
        return "\(type) \(priority)"
    }

    private func ended(_ fate: borrowing PushFate) {
        guard fate.outcome.isFinal else { return }
        let now = Date().timeIntervalSince1970
        var line = JSONLine()
        line.field("type", "outcome")
        line.field("apnsId", fate.apnsId)
        line.field("phone", fate.phoneName)
        line.field("outcome", fate.outcome.kind)
        line.field("reason", fate.outcome.reason)
        line.raw("story", "[" + fate.texts.map(JSONLine.quoted).joined(separator: ",") + "]")
        let json = line.finish()
        let apnsId = fate.apnsId
        let outcome = fate.outcome.kind
        // Its row, as its push was counted (a push the map no longer holds: by its topic and priority).
        let fallback = "\(fate.topic.hasSuffix(".voip") ? "voip" : "other") \(fate.priority.rawValue)"
        state.withLock { state in
            let kind = state.kinds.removeValue(forKey: apnsId) ?? fallback
            count("outcome \(outcome) \(kind)", at: now, in: &state)
            append(json, to: &state)
        }
    }

    private func count(_ key: String, at now: Double, in state: inout State) {
        let start = (now / Self.bucketSeconds).rounded(.down) * Self.bucketSeconds
        if state.counts.last?.start != start {
            state.counts.append((start, [:]))
            if state.counts.count > Self.buckets { state.counts.removeFirst(state.counts.count - Self.buckets) }
        }
        state.counts[state.counts.count - 1].counts[key, default: 0] += 1
    }

    private func append(_ json: String, to state: inout State) {
        state.events.append((state.next, json))
        state.next += 1
        if state.events.count > Self.kept { state.events.removeFirst(state.events.count - Self.kept) }
    }

    /// The events after `number`, and how many of those were no longer kept.
    func events(after number: Int) -> (events: [(number: Int, json: String)], missed: Int) {
        state.withLock { state in
            let first = state.events.first?.number ?? state.next
            let missed = max(0, first - number - 1)
            return (state.events.filter { $0.number > number }, number == 0 ? 0 : missed)
        }
    }

    /// The counts of the last ten minutes, a bucket each, and the pushes not listed:
    /// `{"bucketSeconds":10,"notListed":0,"buckets":[{"start":…,"counts":{…}}]}`.
    func metricsJSON() -> String {
        state.withLock { state in
            let buckets = state.counts.map { bucket in
                var line = JSONLine()
                line.field("start", Int64(bucket.start))
                line.raw(
                    "counts",
                    "{"
                        + bucket.counts.sorted { $0.key < $1.key }.map { "\(JSONLine.quoted($0.key)):\($0.value)" }
                        .joined(separator: ",") + "}")
                return line.finish()
            }
            return "{\"bucketSeconds\":\(Int(Self.bucketSeconds)),\"notListed\":\(state.notListed),\"buckets\":["
                + buckets.joined(separator: ",") + "]}"
        }
    }

    /// A push as the console lists it: its headers, each with what it means and whether it passed.
    static func pushJSON(_ record: PushRecord) -> String {
        let request = record.request
        var line = JSONLine()
        line.field("type", "push")
        line.field("at", Int64((record.at.wall * 1000).rounded()))
        line.field("connection", Int64(record.connection))
        line.field("stream", Int(record.streamId))
        line.field("apnsId", record.apnsId)
        line.field("token", request.deviceToken)
        line.field("status", record.status)
        line.field("reason", record.rejection?.reason.rawValue)
        line.field("detail", record.rejection?.detail)
        line.field("fault", record.fault)
        line.field("pushType", request.pushType)
        line.field("priority", request.priority)
        // A fault plan's answer is no header's doing: `fault` says it.
        let failing = record.fault == nil ? record.rejection.map { header(of: $0.check) } : nil
        let headers = annotated(request).map { header in
            var field = JSONLine()
            field.field("name", header.name)
            field.field("value", header.value)
            let note =
                header.name == failing
                ? record.rejection?.detail ?? header.note
                : header.problem.map { "\(header.note) — \($0)" } ?? header.note
            field.field("note", note)
            field.field("ok", header.name != failing && header.problem == nil)
            return field.finish()
        }
        line.raw("headers", "[" + headers.joined(separator: ",") + "]")
        return line.finish()
    }

    /// The header a check reads (the request's line for the device token and its state).
    static func header(of check: Check) -> String {
        switch check {
        case .method: ":method"
        case .path, .deviceToken, .device: ":path"
        case .duplicateHeaders: "headers"
        case .authentication: "authorization"
        case .messageId: "apns-id"
        case .topic, .topicAuthorization: "apns-topic"
        case .pushType: "apns-push-type"
        case .priority: "apns-priority"
        case .expiration: "apns-expiration"
        case .collapseId: "apns-collapse-id"
        case .payload, .voipLint: "body"
        }
    }

    /// Each header sent, with what APNs reads in it and, for a VoIP push, what is wrong with it
    /// for a call — the words of `ringside send` (`HeaderVocabulary`).
    static func annotated(_ request: PushRequest) -> [(name: String, value: String, note: String, problem: String?)] {
        let isVoIP = request.pushType == "voip" || request.topic?.hasSuffix(".voip") == true
        var headers: [(name: String, value: String, note: String, problem: String?)] = []
        let known: [(String, String?)] = [
            (":method", request.method), (":path", request.path), ("authorization", request.authorization),
            ("apns-id", request.apnsId), ("apns-push-type", request.pushType), ("apns-topic", request.topic),
            ("apns-priority", request.priority), ("apns-expiration", request.expiration),
            ("apns-collapse-id", request.collapseId),
        ]
        for case (let name, let value?) in known {
            let entry = HeaderVocabulary.entry(name)
            let problem = isVoIP ? entry?.judge(value) : nil
            let shown = name == "authorization" ? abbreviatedJWT(value) : value
            headers.append((name, shown, entry?.meaning ?? "", problem))
        }
        for other in request.otherHeaders {
            let own = other.name.hasPrefix(":") || other.name == "host"
            headers.append((other.name, other.value, own ? "HTTP/2's own" : "not an APNs header; APNs ignores it", nil))
        }
        headers.append(
            (
                "body", String(decoding: request.body.prefix(4096), as: UTF8.self),
                "the payload: JSON, at most 5,120 bytes for VoIP, which PushKit hands to the app", nil
            ))
        return headers
    }

    /// A JWT shown by its header and claims, not its signature (the page is not a place for it).
    static func abbreviatedJWT(_ value: String) -> String {
        let parts = value.split(separator: ".")
        guard parts.count == 3 else { return value.count > 24 ? String(value.prefix(24)) + "…" : value }
        return "\(parts[0]).\(parts[1]).…"
    }
}
