import APNs
import Foundation
import Synchronization
import World

/// One readable line per request on standard error: device token abbreviated, push type, verdict, reason,
/// and a hint of what to do. Written to fd 2 directly (`stderr` is not concurrency-safe in Swift 6).
/// A push's line is gathered and written with the others of its event loop's turn (`flush`): one
/// `write` per line cost a quarter of `serve`'s throughput (issue 30). Every other event, rarer,
/// writes what is gathered and itself at once, so lines keep their order and none waits.
public final class RequestLog: MockObserver, Sendable {
    private let gathered = Mutex<[UInt8]>([])
    private let fd: Int32
    /// Gathered bytes written at once, whatever the turn: a long turn's lines do not wait.
    static let writeAbove = 1 << 16

    public init(fd: Int32 = 2) { self.fd = fd }

    public func observe(_ event: MockEvent) {
        guard case .push(let record) = event else { return gather(Self.line(for: event), flushing: true) }
        var line: [UInt8] = []
        if Self.acceptedLine(record, into: &line) {
            gather(line, flushing: false)
        } else {
            gather(Self.line(for: event), flushing: false)
        }
    }

    /// The line of an accepted push whose fields are plain printable ASCII, written as bytes: the
    /// same text as `line(for:)`, which formatting as a `String` made a fifth of `serve`'s work
    /// (issue 30). False for any other push: `line(for:)` writes it.
    static func acceptedLine(_ record: PushRecord, into out: inout [UInt8]) -> Bool {
        let request = record.request
        guard record.status == 200, record.rejection == nil, record.notes.isEmpty, let token = request.deviceToken,
            let method = request.method
        else { return false }
        let type = request.pushType ?? "no push type"
        let topic = request.topic ?? "no topic"
        func plain(_ text: String) -> Bool { text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C } }
        guard plain(token), plain(method), plain(type), plain(topic) else { return false }
        out.reserveCapacity(160)
        appendClock(record.at, into: &out)
        out.append(contentsOf: " #".utf8)
        appendDecimal(record.connection, into: &out)
        out.append(0x20)
        out.append(contentsOf: method.utf8)
        out.append(0x20)
        let bytes = Array(token.utf8)
        if bytes.count <= 14 {
            out.append(contentsOf: bytes)
        } else {
            out.append(contentsOf: bytes[0..<6])
            out.append(contentsOf: "…".utf8)
            out.append(contentsOf: bytes[(bytes.count - 6)...])
        }
        out.append(0x20)
        out.append(contentsOf: type.utf8)
        out.append(0x20)
        out.append(contentsOf: topic.utf8)
        out.append(contentsOf: " → 200 accepted, apns-id ".utf8)
        out.append(contentsOf: record.apnsId.utf8)
        out.append(0x0A)
        return true
    }

    private static func appendDecimal(_ value: UInt64, into out: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, into: &out) }
        out.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// `hh:mm:ss.mmm` of the world clock, as `clock(_:)` writes it.
    private static func appendClock(_ at: Moment, into out: inout [UInt8]) {
        let seconds = Int(at.world)
        let millis = Int((at.world - Double(seconds)) * 1000)
        for (value, digits, separator) in [
            ((seconds / 3600) % 24, 2, ":"), ((seconds / 60) % 60, 2, ":"), (seconds % 60, 2, "."), (millis, 3, ""),
        ] {
            var divisor = digits == 3 ? 100 : 10
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
                divisor /= 10
            }
            out.append(contentsOf: separator.utf8)
        }
    }

    /// One line: what it quotes from outside (paths, header values, a payload's caller) is shown
    /// visibly, so a request cannot write a line of its own into the log (OutsideText).
    public func emit(_ text: String) { gather(text, flushing: true) }

    public func flush() { gather([], flushing: true) }

    /// A line from outside text, shown visibly.
    private func gather(_ text: String, flushing: Bool) {
        gather(Array((OutsideText.visible(text) + "\n").utf8), flushing: flushing)
    }

    /// Adds `line` to what is gathered, and writes it all when asked or when it is large: under the
    /// lock, so that lines stay whole and in order.
    private func gather(_ line: [UInt8], flushing: Bool) {
        gathered.withLock { bytes in
            bytes.append(contentsOf: line)
            if !bytes.isEmpty, flushing || bytes.count >= Self.writeAbove {
                _ = OutputFiles.writeAll(bytes, to: fd)
                bytes.removeAll(keepingCapacity: true)
            }
        }
    }

    public static func line(for event: MockEvent) -> String {
        switch event {
        case .connectionOpened(let connection, let peer, let alpn, let authentication, let at):
            return
                "\(clock(at)) #\(connection) connected from \(peer), ALPN \(alpn ?? "none (HTTP/2 prior knowledge)"), \(authentication) authentication"
        case .connectionRefused(let peer, let why, let at):
            return "\(clock(at)) refused \(peer): \(why)"
        case .goAway(let connection, let last, let reason, let at):
            return
                "\(clock(at)) #\(connection) GOAWAY last-stream-id \(last.map(String.init) ?? "last processed") {\"reason\":\"\(reason.wire)\"} — \(reason.explanation)"
        case .streamRefused(let connection, let streamId, let why, let at):
            return "\(clock(at)) #\(connection) stream \(streamId) refused (REFUSED_STREAM): \(why)"
        case .connectionClosed(let connection, let why, let at):
            return "\(clock(at)) #\(connection) closed: \(why)"
        case .settings(let connection, let streams, let why, let at):
            return "\(clock(at)) #\(connection) SETTINGS MAX_CONCURRENT_STREAMS=\(streams): \(why)"
        case .outcome(let fate):
            let token = DeviceTokenSyntax.abbreviated(fate.token)
            let folklore = fate.folkloreUsed.isEmpty ? "" : " [folklore: \(fate.folkloreUsed.joined(separator: ", "))]"
            return
                "\(clock(Moment(fate.finishedAt ?? fate.sentAt))) push \(fate.apnsId) to \(token): \(fate.outcome.kind)\(fate.outcome.reason.map { " (\($0))" } ?? "") — \(fate.texts.last ?? "")\(folklore)"
        case .push(let record):
            let request = record.request
            let token = request.deviceToken.map(DeviceTokenSyntax.abbreviated) ?? (request.path ?? "-")
            let type = request.pushType ?? "no push type"
            var text =
                "\(clock(record.at)) #\(record.connection) \(request.method ?? "?") \(token) \(type) \(request.topic ?? "no topic") → "
            if let rejection = record.rejection {
                let status = record.status == 0 ? "GOAWAY" : String(record.status)
                text += "\(status) \(rejection.reason.wire): \(rejection.detail). \(rejection.explanation)"
                if let fault = record.fault { text += " [\(fault)]" }
                text += " Hint: \(rejection.whatToDo)"
            } else if record.status == 200 {
                text += "200 accepted, apns-id \(record.apnsId)"
            } else {
                text += "\(record.status) \(record.fault ?? "")"
            }
            for note in record.notes { text += " [\(note.rawValue)] \(note.explanation)" }
            return text
        }
    }

    private static func clock(_ at: Moment) -> String {
        let seconds = Int(at.world)
        let millis = Int((at.world - Double(seconds)) * 1000)
        let h = (seconds / 3600) % 24
        let m = (seconds / 60) % 60
        let s = seconds % 60
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : String(millis)
        return "\(two(h)):\(two(m)):\(two(s)).\(ms)"
    }
}
