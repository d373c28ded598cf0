import APNs
import Foundation
import Synchronization
import World

/// Writes the JSONL transcript (docs/architecture.md): one object per event, flushed per line (one
/// `write`), so a crash loses at most the line being written. Provider tokens' (JWTs') signatures are
/// redacted.
///
/// `wallTime` fields are wall-clock and differ between runs; everything else repeats with the seed.
public final class TranscriptWriter: MockObserver {
    /// The file, written a whole line at a time under the lock.
    private let fd: Mutex<Int32>

    private let path: String

    public init(path: String) throws {
        self.path = path
        fd = Mutex(try OutputFiles.openForStreaming(path))
    }

    deinit {
        let fd = fd.withLock { $0 }
        if fd >= 0 { close(fd) }
    }

    public func observe(_ event: MockEvent) {
        var line = Self.render(event).utf8CString.dropLast().map { UInt8(bitPattern: $0) }
        line.append(UInt8(ascii: "\n"))
        write(line)
    }

    /// Writes a line; a reader that leaves a pipe full for 5 s (or a full disk) ends the
    /// transcript, said once, instead of stopping the server with it (the adversary's FIFO whose
    /// reader stopped reading left `serve` deaf to SIGTERM, session 17).
    private func write(_ line: [UInt8]) {
        fd.withLock { fd in
            guard fd >= 0 else { return }
            let failure = OutputFiles.writeAll(line, to: fd)
            guard failure != 0 else { return }
            close(fd)
            fd = -1
            let why = failure == ETIMEDOUT ? "its reader read nothing for 5 s" : String(cString: strerror(failure))
            let text = "ringside: the transcript \(OutsideText.visible(path)) stopped: \(why)\n"
            _ = text.withCString { Foundation.write(2, $0, strlen($0)) }
        }
    }

    /// A value of a line the runner adds (`note`).
    public enum Value: Sendable {
        case text(String)
        case integer(Int)
        case milliseconds(Double?)
        /// Counts by name (`{"offline":3,"no-push":1}`), in the order given.
        case counts([(String, Int)])
    }

    /// Writes a line that is the runner's, not the mock's (`{"event":"load-summary",…}`, issue 48):
    /// `ringside replay` reads only `push` lines, so it passes over it.
    public func note(event: String, _ fields: [(String, Value)]) {
        var line = JSONLine()
        line.field("event", event)
        for (key, value) in fields {
            switch value {
            case .text(let text): line.field(key, text)
            case .integer(let number): line.field(key, number)
            case .milliseconds(let seconds): line.field(key, seconds.map { Int(($0 * 1000).rounded()) })
            case .counts(let counts):
                line.raw(
                    key, "{" + counts.map { JSONLine.quoted($0.0) + ":" + String($0.1) }.joined(separator: ",") + "}")
            }
        }
        write(Array((line.finish() + "\n").utf8))
    }

    /// One event as a JSON object.
    public static func render(_ event: MockEvent) -> String {
        var line = JSONLine()
        switch event {
        case .connectionOpened(let connection, let peer, let alpn, let authentication, let at):
            line.field("event", "connection-opened")
            time(&line, at)
            line.field("connection", Int64(connection))
            line.field("peer", peer)
            line.field("alpn", alpn ?? "none (prior knowledge)")
            line.field("authentication", authentication)
        case .connectionRefused(let peer, let why, let at):
            line.field("event", "connection-refused")
            time(&line, at)
            line.field("peer", peer)
            line.field("why", why)
        case .goAway(let connection, let lastStreamId, let reason, let at):
            line.field("event", "goaway")
            time(&line, at)
            line.field("connection", Int64(connection))
            line.field("lastStreamId", lastStreamId.map(Int64.init))
            line.field("reason", reason.wire)
        case .streamRefused(let connection, let streamId, let why, let at):
            line.field("event", "stream-refused")
            time(&line, at)
            line.field("connection", Int64(connection))
            line.field("stream", Int64(streamId))
            line.field("why", why)
        case .connectionClosed(let connection, let why, let at):
            line.field("event", "connection-closed")
            time(&line, at)
            line.field("connection", Int64(connection))
            line.field("why", why)
        case .settings(let connection, let streams, let why, let at):
            line.field("event", "settings")
            time(&line, at)
            line.field("connection", Int64(connection))
            line.field("maxConcurrentStreams", Int64(streams))
            line.field("why", why)
        case .outcome(let fate):
            line.field("event", "outcome")
            time(&line, Moment(fate.finishedAt ?? fate.sentAt))
            outcomeFields(&line, fate)
        case .push(let record):
            line.field("event", "push")
            time(&line, record.at)
            line.field("connection", Int64(record.connection))
            line.field("stream", Int64(record.streamId))
            line.raw("request", requestJSON(record.request))
            line.field("status", record.status)
            line.field("apnsId", record.apnsId)
            if let rejection = record.rejection {
                line.field("reason", rejection.reason.wire)
                line.field("check", rejection.check.rawValue)
                line.field("detail", rejection.detail)
                line.field("explanation", rejection.explanation)
                // The voip-lint rule that refused it (`voip-lint/expiration-not-zero`); absent otherwise.
                line.field("lint", rejection.lint?.name)
                line.field("timestamp", rejection.timestamp)
                line.field("source", rejection.reason.source)
            }
            line.field("fault", record.fault)
            if case let notes = record.notes, !notes.isEmpty {
                line.raw("notes", "[" + notes.map { JSONLine.quoted($0.rawValue) }.joined(separator: ",") + "]")
                line.field("noteExplanations", notes.map(\.explanation).joined(separator: " "))
            }
        }
        return line.finish()
    }

    /// A push's fate as JSON fields (the transcript and the control API share them).
    static func outcomeFields(_ line: inout JSONLine, _ fate: PushFate) {
        line.field("number", fate.number)
        line.field("apnsId", fate.apnsId)
        line.field("token", fate.token)
        line.field("topic", fate.topic)
        line.field("phone", fate.phone)
        line.field("bundleId", fate.bundleId)
        line.field("outcome", fate.outcome.kind)
        line.field("reason", fate.outcome.reason)
        line.field("callUUID", fate.callUUID)
        line.field("caller", fate.caller)
        line.field("sentAt", Int64(fate.sentAt * 1000))
        line.field("finishedAt", fate.finishedAt.map { Int64($0 * 1000) })
        if case .rangLate(_, _, let lateBy) = fate.outcome { line.field("lateBySeconds", Int64(lateBy)) }
        var chain = "["
        for (index, step) in fate.chain.enumerated() {
            var item = JSONLine()
            item.field("at", Int64(step.at * 1000))
            item.field("text", step.step.text(for: fate))
            item.field("folklore", step.folklore)
            chain += (index > 0 ? "," : "") + item.finish()
        }
        line.raw("chain", chain + "]")
        line.field("explanation", fate.explanation)
        if !fate.folkloreUsed.isEmpty {
            line.raw("folklore", "[" + fate.folkloreUsed.map(JSONLine.quoted).joined(separator: ",") + "]")
        }
    }

    private static func time(_ line: inout JSONLine, _ at: Moment) {
        line.field("worldTime", at.milliseconds)
        line.field("wallTime", Int64(at.wall * 1000))
    }

    static func requestJSON(_ request: PushRequest) -> String {
        var line = JSONLine()
        line.field(":method", request.method)
        line.field(":path", request.path)
        line.field("authorization", request.authorization.map(ProviderToken.redacted))
        line.field("apns-id", request.apnsId)
        line.field("apns-push-type", request.pushType)
        line.field("apns-topic", request.topic)
        line.field("apns-priority", request.priority)
        line.field("apns-expiration", request.expiration)
        line.field("apns-collapse-id", request.collapseId)
        if !request.duplicatedHeaders.isEmpty {
            line.field("duplicated", request.duplicatedHeaders.joined(separator: ","))
        }
        line.field("bodyLength", request.bodyLength)
        if request.bodyLength <= 5120, request.body.count == request.bodyLength {
            line.field("body", String(decoding: request.body, as: UTF8.self))
        } else if !request.body.isEmpty {
            // Only the start was kept (the control API's buffer keeps a kilobyte).
            line.field("bodyStart", String(decoding: request.body, as: UTF8.self))
        }
        return line.finish()
    }
}
