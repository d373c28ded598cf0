import APNs
import Foundation
import Synchronization
import World

/// One readable line per request on standard error: device token abbreviated, push type, verdict, reason,
/// and a hint of what to do. Written to fd 2 directly (`stderr` is not concurrency-safe in Swift 6).
/// A push's line is gathered with the others of its event loop's turn, in that thread's own buffer,
/// and written at the turn's end (`flush`): one `write` per line cost a quarter of `serve`'s
/// throughput, and one buffer for every worker had them wait for each other's lock (issue 30). A
/// connection is served by one worker, so its lines keep their order. Every other event, rarer,
/// writes what every thread has gathered and then itself at once: an outcome follows its request's
/// line, and none waits.
public final class RequestLog: MockObserver, Sendable {
    /// The calling thread's `Lines`, unretained (`everyLines` keeps them).
    private let key: pthread_key_t
    /// Every thread's lines, for the events that write them all.
    private let everyLines = Mutex<[Lines]>([])
    /// Held while writing, before any thread's `Lines` is locked: gathered lines and the lines of
    /// other events go out whole and in order.
    private let writing = Mutex(())

    /// One thread's lines not written yet, and the clock as the last of them showed it.
    private final class Lines: Sendable {
        let gathered = Mutex(Gathered())
    }

    private struct Gathered {
        var bytes: [UInt8] = []
        var clock = ClockText()
    }

    /// `hh:mm:ss.mmm` as last written, and the millisecond it shows: the lines of a burst share it,
    /// and writing it digit by digit was a sixth of a line (callgrind, 800 instructions).
    struct ClockText {
        private var millisecond = Int.min
        private var text: [UInt8] = []

        /// The clock's text at `at`, lent to `body`.
        mutating func withText<R>(_ at: Moment, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            let (seconds, millis) = RequestLog.clockParts(at)
            if seconds &* 1000 &+ millis != millisecond {
                millisecond = seconds &* 1000 &+ millis
                text.removeAll(keepingCapacity: true)
                RequestLog.appendClock(at, into: &text)
            }
            return text.withUnsafeBufferPointer(body)
        }
    }
    private let fd: Int32
    /// Gathered bytes written at once, whatever the turn: a long turn's lines do not wait.
    static let writeAbove = 1 << 16

    public init(fd: Int32 = 2) {
        self.fd = fd
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    deinit {
        writeEveryLine()
        pthread_key_delete(key)
    }

    /// The calling thread's lines, made on its first line.
    private var ownLines: Lines {
        if let lines = pthread_getspecific(key) { return Unmanaged<Lines>.fromOpaque(lines).takeUnretainedValue() }
        let lines = Lines()
        everyLines.withLock { $0.append(lines) }
        pthread_setspecific(key, Unmanaged.passUnretained(lines).toOpaque())
        return lines
    }

    public func observe(_ event: consuming MockEvent) { read(event) }

    /// It writes a line and keeps nothing.
    public var keepsEvents: Bool { false }

    public func read(_ event: borrowing MockEvent) {
        switch event {
        case .push(let record):
            // An accepted push's line is written straight into what is gathered: no array of its own.
            if !gather({ Self.acceptedLine(record, into: &$0.bytes, clock: &$0.clock) }) {
                let line = Self.visibleLine(Self.line(for: copy event))
                gather {
                    $0.bytes.append(contentsOf: line)
                    return true
                }
            }
        default: writeEveryLine(then: Self.visibleLine(Self.line(for: copy event)))
        }
    }

    /// The line of an accepted push whose fields are plain printable ASCII, written as bytes: the
    /// same text as `line(for:)`, which formatting as a `String` made a fifth of `serve`'s work
    /// (issue 30). False for any other push (`out` unchanged): `line(for:)` writes it. The fields
    /// are checked, the line's length worked out, and the line written into the stack and appended
    /// to `out` at once: appending each piece to `out` checked its capacity and uniqueness each
    /// time, 3,400 instructions a line (callgrind).
    static func acceptedLine(_ record: PushRecord, into out: inout [UInt8], clock: inout ClockText) -> Bool {
        let request = record.request
        guard record.status == 200, record.rejection == nil, record.notes.isEmpty, var token = request.deviceToken,
            var method = request.method, record.messageId.isCanonical
        else { return false }
        var type = request.pushType ?? "no push type"
        var topic = request.topic ?? "no topic"
        return clock.withText(record.at) { clock in
            method.withUTF8 { method in
                token.withUTF8 { token in
                    type.withUTF8 { type in
                        topic.withUTF8 { topic in
                            guard method.allSatisfy(isPlain), token.allSatisfy(isPlain), type.allSatisfy(isPlain),
                                topic.allSatisfy(isPlain)
                            else { return false }
                            let line = AcceptedLine(
                                clock: clock, connection: record.connection, method: method, token: token, type: type,
                                topic: topic, id: record.messageId)
                            line.append(to: &out)
                            return true
                        }
                    }
                }
            }
        }
    }

    /// The pieces of an accepted push's line, checked plain: `hh:mm:ss.mmm #connection method
    /// token type topic → 200 accepted, apns-id id`, the token abbreviated past 14 characters as
    /// `DeviceTokenSyntax.abbreviated` does it.
    private struct AcceptedLine {
        let clock: UnsafeBufferPointer<UInt8>
        let connection: UInt64
        let method: UnsafeBufferPointer<UInt8>
        let token: UnsafeBufferPointer<UInt8>
        let type: UnsafeBufferPointer<UInt8>
        let topic: UnsafeBufferPointer<UInt8>
        let id: MessageId

        static let ellipsis: StaticString = "…"
        static let verdict: StaticString = " → 200 accepted, apns-id "

        var digits: Int {
            var count = 1
            var rest = connection
            while rest >= 10 {
                rest /= 10
                count += 1
            }
            return count
        }

        var tokenLength: Int { token.count <= 14 ? token.count : 12 + Self.ellipsis.utf8CodeUnitCount }

        var length: Int {
            clock.count + 2 + digits + 1 + method.count + 1 + tokenLength + 1 + type.count + 1 + topic.count
                + Self.verdict.utf8CodeUnitCount + MessageId.textCount + 1
        }

        func append(to out: inout [UInt8]) {
            let length = length
            // Doubled, not grown to fit: `reserveCapacity` gives exactly what is asked, so asking for
            // one line more each time moved the whole turn's gathered lines on every push.
            if out.capacity < out.count + length { out.reserveCapacity(max(out.count + length, 2 * out.capacity)) }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { line in
                var at = line.baseAddress!
                func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                    guard let base = bytes.baseAddress else { return }
                    at.update(from: base, count: bytes.count)
                    at += bytes.count
                }
                func put(_ text: StaticString) {
                    put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
                }
                func put(_ byte: UInt8) {
                    at.pointee = byte
                    at += 1
                }
                put(clock)
                put(" #")
                var rest = connection
                for place in stride(from: digits - 1, through: 0, by: -1) {
                    at[place] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                at += digits
                put(0x20)
                put(method)
                put(0x20)
                if token.count <= 14 {
                    put(token)
                } else {
                    put(UnsafeBufferPointer(rebasing: token[0..<6]))
                    put(Self.ellipsis)
                    put(UnsafeBufferPointer(rebasing: token[(token.count - 6)...]))
                }
                put(0x20)
                put(type)
                put(0x20)
                put(topic)
                put(Self.verdict)
                id.write(to: at)
                at += MessageId.textCount
                put(0x0A)
                out.append(contentsOf: UnsafeBufferPointer(start: line.baseAddress, count: length))
            }
        }
    }

    /// Printable ASCII but the backslash: what `OutsideText.visible` leaves as it is.
    private static func isPlain(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F && byte != 0x5C }

    /// The whole seconds and the milliseconds of a moment's world time, as the clock shows them.
    static func clockParts(_ at: Moment) -> (seconds: Int, millis: Int) {
        let seconds = Int(at.world)
        return (seconds, Int((at.world - Double(seconds)) * 1000))
    }

    /// `hh:mm:ss.mmm` of the world clock, as `clock(_:)` writes it.
    static func appendClock(_ at: Moment, into out: inout [UInt8]) {
        let (seconds, millis) = clockParts(at)
        func digits(_ value: Int, _ count: Int, then separator: UInt8?) {
            var divisor = count == 3 ? 100 : 10
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
                divisor /= 10
            }
            if let separator { out.append(separator) }
        }
        digits((seconds / 3600) % 24, 2, then: UInt8(ascii: ":"))
        digits((seconds / 60) % 60, 2, then: UInt8(ascii: ":"))
        digits(seconds % 60, 2, then: UInt8(ascii: "."))
        digits(millis, 3, then: nil)
    }

    /// One line: what it quotes from outside (paths, header values, a payload's caller) is shown
    /// visibly, so a request cannot write a line of its own into the log (OutsideText).
    public func emit(_ text: String) { writeEveryLine(then: Self.visibleLine(text)) }

    /// The end of a worker's turn: its lines are written. From a thread with none, every thread's.
    public func flush() {
        guard let own = pthread_getspecific(key) else { return writeEveryLine() }
        let lines = Unmanaged<Lines>.fromOpaque(own).takeUnretainedValue()
        if !lines.gathered.withLock({ $0.bytes.isEmpty }) { write(lines) }
    }

    /// A line from outside text, shown visibly.
    private static func visibleLine(_ text: String) -> [UInt8] { Array((OutsideText.visible(text) + "\n").utf8) }

    /// Adds what `line` appends to the calling thread's lines (it returns false having appended
    /// nothing), and writes them when they are many. Returns what `line` returned.
    @discardableResult
    private func gather(_ line: (inout Gathered) -> Bool) -> Bool {
        let lines = ownLines
        let (wrote, many) = lines.gathered.withLock { gathered in
            let wrote = line(&gathered)
            return (wrote, gathered.bytes.count >= Self.writeAbove)
        }
        if many { write(lines) }
        return wrote
    }

    /// Writes one thread's lines.
    private func write(_ lines: Lines) {
        writing.withLock { _ in lines.gathered.withLock { writeOut(&$0.bytes) } }
    }

    /// Writes what every thread has gathered, then `line`.
    private func writeEveryLine(then line: [UInt8] = []) {
        writing.withLock { _ in
            for lines in everyLines.withLock({ $0 }) { lines.gathered.withLock { writeOut(&$0.bytes) } }
            var line = line
            writeOut(&line)
        }
    }

    private func writeOut(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = OutputFiles.writeAll(bytes, to: fd)
        bytes.removeAll(keepingCapacity: true)
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
        let (seconds, millis) = clockParts(at)
        let h = (seconds / 3600) % 24
        let m = (seconds / 60) % 60
        let s = seconds % 60
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : String(millis)
        return "\(two(h)):\(two(m)):\(two(s)).\(ms)"
    }
}
