import APNs
import Foundation
import TestSupport
import Testing

@testable import MockAPNs

/// `serve`'s log writes an accepted push's line as bytes (issue 30): the same text as the general
/// path, for the pushes it takes, and the general path for every other.
@Suite struct RequestLogTests {
    @Test("An accepted push's line written as bytes reads exactly as the general path writes it")
    func bytesMatchTheGeneralLine() throws {
        let server = try MemoryMock.protocolOnly()
        #expect(server.applePush().status == 200)
        #expect(server.applePush(headers: ["apns-push-type": nil]).status == 200)
        #expect(server.applePush(token: String(repeating: "0f", count: 32)).status == 200)
        #expect(server.applePush(headers: ["apns-priority": "7"]).status == 400)
        // The provider's own apns-id, written as sent; the others the mock made.
        #expect(server.applePush(headers: ["apns-id": "123E4567-E89B-12D3-A456-426614174000"]).status == 200)
        let records = server.events.pushes
        #expect(records.count == 5)
        var fast = 0
        for record in records {
            var bytes: [UInt8] = []
            let general = OutsideText.visible(RequestLog.line(for: .push(record))) + "\n"
            var clock = RequestLog.ClockText()
            if RequestLog.acceptedLine(record, into: &bytes, clock: &clock) {
                fast += 1
                #expect(String(decoding: bytes, as: UTF8.self) == general)
            } else {
                #expect(record.status != 200, "\(general)")
            }
        }
        #expect(fast == 4)
    }

    @Test("A field the log must show visibly (a backslash, a control byte) takes the general path")
    func outsideTextTakesTheGeneralPath() throws {
        let server = try MemoryMock.protocolOnly(ValidationSettings(profile: .apple))
        _ = server.applePush(headers: ["apns-topic": #"com.ringside.testapp.voip\x"#])
        #expect(!server.events.pushes.isEmpty)
        for record in server.events.pushes {
            var bytes: [UInt8] = []
            var clock = RequestLog.ClockText()
            #expect(!RequestLog.acceptedLine(record, into: &bytes, clock: &clock))
        }
        // An accepted push whose topic the log must show visibly: refused after the clock, method and
        // token were written into what is gathered, which it leaves as it was.
        var ids = MessageIdGenerator(seed: 1)
        let accepted = Self.accepted(topic: "com.ringside.testapp.voip\u{1B}[31m", at: 0, ids: &ids)
        var bytes = Array("earlier line\n".utf8)
        var clock = RequestLog.ClockText()
        #expect(!RequestLog.acceptedLine(accepted, into: &bytes, clock: &clock))
        #expect(String(decoding: bytes, as: UTF8.self) == "earlier line\n")
    }

    @Test("Lines of a burst share their clock; the next millisecond, second or hour shows its own")
    func theClockIsWrittenAgainWhenItChanges() throws {
        var ids = MessageIdGenerator(seed: 1)
        var clock = RequestLog.ClockText()
        let start = 1_800_000_000.0
        // The same millisecond twice, the next, the next second, an hour later, and back.
        for offset in [0.0001, 0.0004, 0.0011, 1.0011, 3601.0011, 0.0004] {
            let record = Self.accepted(topic: "com.ringside.testapp.voip", at: start + offset, ids: &ids)
            var bytes: [UInt8] = []
            #expect(RequestLog.acceptedLine(record, into: &bytes, clock: &clock))
            #expect(
                String(decoding: bytes, as: UTF8.self) == OutsideText.visible(RequestLog.line(for: .push(record)))
                    + "\n",
                "at +\(offset) s")
        }
    }

    @Test(
        "Connection numbers of every width, tokens either side of the abbreviation, and a made-up id of another length",
        arguments: [0, 9, 10, 99, 12_345, UInt64.max])
    func widths(connection: UInt64) throws {
        var ids = MessageIdGenerator(seed: 2)
        for token in ["ab", String(repeating: "c", count: 14), String(repeating: "d", count: 15), Paths.voipToken] {
            var record = Self.accepted(topic: "com.ringside.testapp.voip", at: 1_800_000_000.5, ids: &ids)
            record.connection = connection
            record.request = Self.request(token: token, topic: "com.ringside.testapp.voip")
            var bytes = Array("earlier line\n".utf8)
            var clock = RequestLog.ClockText()
            #expect(RequestLog.acceptedLine(record, into: &bytes, clock: &clock))
            let general = "earlier line\n" + OutsideText.visible(RequestLog.line(for: .push(record))) + "\n"
            #expect(String(decoding: bytes, as: UTF8.self) == general, "token \(token.count) long")
        }
        // An id that is not a checked UUID takes the general path, which shows it visibly: a test's
        // `"id-1"`, and 36 bytes of escape sequences (the byte path checks no id, only its kind).
        let hostile = String(repeating: "\u{1B}[2J", count: 9)
        #expect(hostile.utf8.count == MessageId.textCount)
        for id in ["id-1", hostile] {
            var record = Self.accepted(topic: "com.ringside.testapp.voip", at: 1_800_000_000.5, ids: &ids)
            record.messageId = MessageId(text: id)
            var bytes: [UInt8] = []
            var clock = RequestLog.ClockText()
            #expect(
                !RequestLog.acceptedLine(record, into: &bytes, clock: &clock) && bytes.isEmpty, "\(id.debugDescription)"
            )
            #expect(!OutsideText.visible(RequestLog.line(for: .push(record))).utf8.contains(0x1B))
        }
        // A provider's own id, checked canonical, takes the byte path.
        var record = Self.accepted(topic: "com.ringside.testapp.voip", at: 1_800_000_000.5, ids: &ids)
        record.messageId = try #require(MessageId(sent: "123E4567-E89B-12D3-A456-426614174000"))
        var bytes: [UInt8] = []
        var clock = RequestLog.ClockText()
        #expect(RequestLog.acceptedLine(record, into: &bytes, clock: &clock))
    }

    static func request(token: String, topic: String) -> PushRequest {
        var request = PushRequest()
        for (name, value) in [
            (":method", "POST"), (":path", "/3/device/\(token)"), ("apns-push-type", "voip"), ("apns-topic", topic),
        ] {
            request.add(name: name, value: value)
        }
        return request
    }

    /// An accepted VoIP push's record, as the mock would have made it.
    static func accepted(topic: String, at time: Double, ids: inout MessageIdGenerator) -> PushRecord {
        var request = PushRequest()
        for (name, value) in [
            (":method", "POST"), (":path", "/3/device/\(Paths.voipToken)"), ("apns-push-type", "voip"),
            ("apns-topic", topic),
        ] {
            request.add(name: name, value: value)
        }
        return PushRecord(
            connection: 1, streamId: 1, at: Moment(time), request: request, messageId: ids.nextId(), status: 200)
    }
}

/// An observer that only reads goes before those that keep events, whenever it was added: the last
/// observer is handed each event itself (`MockAPNs.emit`), and `serve` adds its log after the
/// control API's transcript, which was then lent every push and copied it.
@Suite struct ObserverOrderTests {
    /// Counts how it was given each push: taken (`observe`) or lent (`read`).
    final class Counting: MockObserver, @unchecked Sendable {
        let keepsEvents: Bool
        private let counts = NSLock()
        private var taken = 0
        private var lent = 0

        init(keeps: Bool) { keepsEvents = keeps }

        func observe(_ event: consuming MockEvent) {
            guard case .push = event else { return }
            counts.withLock { taken += 1 }
        }

        func read(_ event: borrowing MockEvent) {
            switch event {
            case .push: counts.withLock { lent += 1 }
            default: break
            }
        }

        var given: (taken: Int, lent: Int) { counts.withLock { (taken, lent) } }
    }

    @Test("A reader added after a keeper is lent each push, and the keeper takes it")
    func readersGoFirst() throws {
        let server = try MemoryMock.protocolOnly()
        let keeper = Counting(keeps: true)
        let reader = Counting(keeps: false)
        server.mock.addObserver(keeper)
        server.mock.addObserver(reader)
        #expect(server.applePush().status == 200)
        #expect(server.applePush().status == 200)
        #expect(reader.given == (0, 2), "the reader: \(reader.given)")
        #expect(keeper.given == (2, 0), "the keeper: \(keeper.given)")
    }
}

/// Each thread gathers its push lines in a buffer of its own (issue 30: one buffer for every worker
/// had them wait for each other's lock); an event of another kind writes every thread's lines first.
@Suite struct RequestLogThreadTests {
    /// A log writing into a file of its own, and the file's text so far.
    final class LogFile: @unchecked Sendable {
        let path = NSTemporaryDirectory() + "ringside-log-\(UUID().uuidString).txt"
        let fd: Int32
        let log: RequestLog

        init() {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            log = RequestLog(fd: fd)
        }

        deinit {
            close(fd)
            unlink(path)
        }

        var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    }

    /// Runs `body` on a thread of its own and waits for it.
    static func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        done.wait()
    }

    @Test(
        "A line gathered on one thread is written before another thread's event line, and a thread's turn writes its own"
    )
    func eventsFollowEveryGatheredLine() throws {
        let file = LogFile()
        var ids = MessageIdGenerator(seed: 3)
        let first = RequestLogTests.accepted(topic: "com.ringside.testapp.voip", at: 1_800_000_000, ids: &ids)
        let second = RequestLogTests.accepted(topic: "com.ringside.testapp.voip", at: 1_800_000_001, ids: &ids)
        let log = file.log
        // A worker gathers a line and has not ended its turn: nothing is written yet.
        Self.onAnotherThread { log.read(.push(first)) }
        #expect(file.text.isEmpty, "gathered, not written: \(file.text)")
        // Another thread's event: the gathered line first, then the event's.
        log.read(.connectionClosed(connection: 1, why: "the test is done", at: Moment(1_800_000_002)))
        let lines = file.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.contains(first.apnsId) == true && lines.last?.contains("the test is done") == true)
        // A worker's turn ends: its line is written, by its own flush.
        Self.onAnotherThread {
            log.read(.push(second))
            log.flush()
        }
        #expect(file.text.split(separator: "\n").last?.contains(second.apnsId) == true, "\(file.text)")
    }
}
