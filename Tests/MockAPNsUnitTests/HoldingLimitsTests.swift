import Foundation
import Testing

@testable import HTTP2Server

/// What one connection may make the server hold: unfinished requests' bytes, and answers to
/// pipelined HTTP/1.1 requests the client does not read.
@Suite struct HoldingLimitsTests {
    /// Records what the engine reports.
    final class Recorder: HTTP2SessionDelegate {
        var requests: [Int32] = []
        var refusals: [(Int32, StreamRefusal)] = []
        func session(_ session: HTTP2Session, didReceive request: HTTP2Request) { requests.append(request.streamId) }
        func session(_ session: HTTP2Session, refusedStream streamId: Int32, _ why: StreamRefusal) {
            refusals.append((streamId, why))
        }
    }

    static func frame(type: UInt8, flags: UInt8, stream: Int32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
            + withUnsafeBytes(of: UInt32(stream).bigEndian, Array.init) + payload
    }

    /// HPACK literal fields without indexing, no Huffman (RFC 7541 §6.2.2), lengths under 127.
    static func headerBlock(_ fields: [(String, String)]) -> [UInt8] {
        fields.flatMap { name, value in
            [0, UInt8(name.utf8.count)] + name.utf8 + [UInt8(value.utf8.count)] + value.utf8
        }
    }

    /// Sends the client's preface and SETTINGS; the function returned feeds the session more bytes,
    /// each time taking its output (its WINDOW_UPDATEs let the client send more: a client waits for them).
    static func feeder(_ session: HTTP2Session) -> ([UInt8]) -> Void {
        func feed(_ bytes: [UInt8]) {
            #expect(bytes.withUnsafeBytes { session.receive($0) })
            session.drainOutput { _ in }
        }
        feed(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(type: 4, flags: 0, stream: 0, []))
        return feed
    }

    static let request = headerBlock([
        (":method", "POST"), (":scheme", "https"), (":path", "/3/device/ab"), (":authority", "localhost"),
    ])

    @Test(
        "Unfinished requests may hold at most maximumHeldPerConnection; streams past it are refused, the others served")
    func unfinishedRequestsAreBounded() {
        let session = HTTP2Session(limits: HTTP2Limits(), initialMaxConcurrentStreams: 1000)
        let recorder = Recorder()
        session.delegate = recorder
        let feed = Self.feeder(session)
        let body = [UInt8](repeating: 0x61, count: 8000)
        for stream in stride(from: Int32(1), through: 399, by: 2) {
            feed(
                Self.frame(type: 1, flags: 4, stream: stream, Self.request)  // END_HEADERS
                    + Self.frame(type: 0, flags: 0, stream: stream, body))  // DATA, no END_STREAM
        }
        feed(Self.frame(type: 0, flags: 1, stream: 1, Array("}".utf8)))  // stream 1 finishes
        let limit = HTTP2Limits().maximumHeldPerConnection
        let held = recorder.refusals.filter { $0.1 == .heldTooMuch(limit: limit) }
        #expect(held.count > 50 && held.count < 100, "\(held.count) of 200 refused for holding")
        #expect(recorder.refusals.count == held.count)
        #expect(recorder.requests == [1], "a stream within the limit is served")
        #expect(session.isAlive, "the connection goes on: \(session.failure ?? "") \(session.goAwayByLibrary ?? "")")
    }

    /// Answers every request with a 300 KB body.
    final class BigAnswers: HTTP2Service, HTTP2ConnectionHandler, @unchecked Sendable {
        var handled = 0
        func open(_ connection: ConnectionInfo) -> any HTTP2ConnectionHandler { self }
        func refused(peer: String, why: String) {}
        var initialMaxConcurrentStreams: UInt32 { 100 }
        func handle(_ request: HTTP2Request, connection: ConnectionControl) {
            handled += 1
            connection.respond(
                streamId: request.streamId, HTTP2Response(status: 200, body: [UInt8](repeating: 0x20, count: 300_000)))
        }
        func idleGoAwayDebugData() -> [UInt8] { [] }
        func closed(why: String) {}
        func refusedStream(_ streamId: Int32, _ why: StreamRefusal) {}
    }

    @Test("Pipelined HTTP/1.1 requests are answered only as fast as the client reads the answers")
    func pipeliningHasBackPressure() {
        let service = BigAnswers()
        let connection = Connection(
            fd: -1, id: 1, peer: "test", tls: nil, service: service, limits: HTTP2Limits(), now: 0, acceptsHTTP1: true)
        let requests = Array(String(repeating: "GET /phones HTTP/1.1\r\nhost: x\r\n\r\n", count: 100).utf8)
        #expect(requests.withUnsafeBytes { connection.received($0) })
        let limit = HTTP2Limits().maximumPendingOutput
        #expect(service.handled < 10, "\(service.handled) of 100 answered before the client read any")
        #expect(connection.pendingOutput < limit + 400_000)
        var rounds = 0
        while service.handled < 100, rounds < 200 {
            connection.output.removeAll()  // the client read everything
            connection.outputOffset = 0
            #expect(connection.serveBufferedHTTP1())
            rounds += 1
        }
        #expect(service.handled == 100, "every request is answered in the end")
        #expect(rounds > 10)
    }

    @Test(
        "HTTP/2 requests wait while answers pile up behind a shut flow-control window, and go with the connection"
    )
    func http2BacklogBehindShutWindow() {
        let service = BigAnswers()
        let connection = Connection(
            fd: -1, id: 1, peer: "test", tls: nil, service: service, limits: HTTP2Limits(), now: 0)
        // SETTINGS_INITIAL_WINDOW_SIZE 0: the client takes no DATA until it opens its window.
        var bytes =
            Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
            + Self.frame(type: 4, flags: 0, stream: 0, [0, 4, 0, 0, 0, 0])
        for stream in stride(from: Int32(1), through: 39, by: 2) {
            bytes += Self.frame(type: 1, flags: 5, stream: stream, Self.request)  // END_STREAM | END_HEADERS
        }
        #expect(bytes.withUnsafeBytes { connection.received($0) })
        #expect(service.handled > 0 && service.handled <= 5, "\(service.handled) of 20 answered into a shut window")
        #expect(connection.hasBacklog)
        let answered = service.handled
        connection.closed()
        #expect(!connection.hasBacklog, "the client left: what waited is dropped")
        #expect(service.handled == answered)
    }

    @Test(
        "Content-Length is digits only: a sign, a list or too many digits is 400",
        arguments: ["+5", "-1", "5, 5", "0x5", "", "99999999999999999999"])
    func contentLengthDigitsOnly(value: String) {
        let session = HTTP1Session(limits: HTTP2Limits())
        let bytes = Array("POST /phones HTTP/1.1\r\ncontent-length: \(value)\r\n\r\nhello".utf8)
        bytes.withUnsafeBytes { session.append($0) }
        #expect(session.next() == nil)
        #expect(session.failureStatus == 400 && session.failure != nil, "\(value)")
    }
}
