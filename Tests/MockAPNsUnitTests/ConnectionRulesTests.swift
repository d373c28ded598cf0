import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing

/// What APNs does on a connection that is not TLS's business (docs/apns-facts.md §1.2): SETTINGS,
/// one stream until a valid JWT, refused streams, header blocks read before, PING. In memory
/// (`MemoryMock`); TLS, ALPN and client certificates are in MockAPNsTests' `ConnectionTests`.
@Suite struct ConnectionRulesTests {
    static let refusedStream: UInt32 = 7

    func refusals(_ mock: MemoryMock) -> [MockEvent] {
        mock.events.all.filter { if case .streamRefused = $0 { true } else { false } }
    }

    @Test("SETTINGS as APNs sends them: one stream until a valid JWT, then 1000")
    func settingsForTokenConnections() throws {
        let mock = try MemoryMock.protocolOnly()
        let connection = mock.connect()
        let settings = connection.client.settings
        #expect(settings["MAX_CONCURRENT_STREAMS"] == 1)
        #expect(settings["HEADER_TABLE_SIZE"] == 4096)
        #expect(settings["MAX_FRAME_SIZE"] == 16384)
        #expect(settings["MAX_HEADER_LIST_SIZE"] == 8000)
        #expect(settings["INITIAL_WINDOW_SIZE"] == 65535)
        connection.push(jwt: "", ["authorization": nil])
        mock.pump()
        #expect(connection.client.settings["MAX_CONCURRENT_STREAMS"] == 1, "no JWT, no raise")
        connection.push(jwt: mock.jwt())
        mock.pump()
        #expect(connection.client.settings["MAX_CONCURRENT_STREAMS"] == 1000)
    }

    @Test("A valid JWT raises the stream limit even when its push is refused (sideshow/apns2 fell to 333 pushes/s)")
    func validTokenOnRefusedPush() throws {
        let mock = try MemoryMock.protocolOnly()
        let connection = mock.connect()
        let jwt = mock.jwt()
        let refused = connection.push(jwt: jwt, ["apns-priority": "7"])
        mock.pump()
        let accepted = connection.push(jwt: jwt)
        mock.pump()
        #expect(CurlResponse(connection.answer(refused)).reason == "BadPriority")
        #expect(connection.answer(accepted).status == 200)
        #expect(connection.client.streamLimits == [1, 1000])
    }

    @Test("A header block the connection read before is reused only when it is the same, byte for byte")
    func repeatedHeaderBlocks() throws {
        let mock = try MemoryMock.protocolOnly()
        let connection = mock.connect()
        let jwt = mock.jwt()
        let duplicate = [("apns-push-type", "alert")]
        let requests: [(token: String, changes: [String: String?], extra: [(String, String)])] = [
            (Paths.voipToken, [:], []), (Paths.voipToken, [:], []), (Paths.voipToken, ["apns-priority": "7"], []),
            (Paths.voipToken, [:], []), (Paths.voipToken, [:], duplicate), (Paths.voipToken, [:], duplicate),
            (Paths.voipToken, [:], []), ("zz", [:], []), (Paths.voipToken, [:], []),
        ]
        let reasons = requests.map { request in
            let stream = connection.push(token: request.token, jwt: jwt, request.changes, extra: request.extra)
            mock.pump()
            let answer = CurlResponse(connection.answer(stream))
            return answer.reason ?? "\(answer.status)"
        }
        // A field more at the end, a field fewer, a field changed in the middle (the path).
        #expect(
            reasons == [
                "200", "200", "BadPriority", "200", "DuplicateHeaders", "DuplicateHeaders", "200", "BadDeviceToken",
                "200",
            ])
    }

    @Test("A connection whose first push is refused then serves 100 concurrent streams, none refused")
    func hundredStreamsAfterRefusedPush() throws {
        let mock = try MemoryMock.protocolOnly()
        let connection = mock.connect()
        let jwt = mock.jwt()
        let warmup = connection.push(jwt: jwt, ["apns-priority": "7"])
        mock.pump()
        #expect(connection.answer(warmup).status == 400, "the warm-up push is refused (BadPriority)")
        #expect(connection.client.maxConcurrentStreams == 1000)
        let streams = (0..<100).map { _ in connection.push(jwt: jwt) }
        mock.pump()
        #expect(streams.allSatisfy { connection.answer($0).status == 200 && connection.answer($0).errorCode == 0 })
        #expect(refusals(mock).isEmpty)
    }

    /// The frames in `bytes` after the client preface, as "HEADERS 1", "DATA 1", ….
    static func frames(_ bytes: [UInt8]) -> [String] {
        let names: [UInt8: String] = [0: "DATA", 1: "HEADERS", 4: "SETTINGS"]
        var frames: [String] = []
        var offset = 24  // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            let stream = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + 5 + $1]) } & 0x7FFF_FFFF
            frames.append("\(names[bytes[offset + 3]] ?? "\(bytes[offset + 3])") \(stream)")
            offset += 9 + length
        }
        return frames
    }

    @Test("A burst sent before SETTINGS, each HEADERS followed by its DATA, gets all but the first stream refused")
    func interleavedBurstBeforeSettings() throws {
        let mock = try MemoryMock.protocolOnly()
        let connection = mock.connect(exchangingSettings: false)
        let jwt = mock.jwt()
        // One write, before the server's SETTINGS are read: each request's HEADERS, then its DATA.
        var burst: [UInt8] = []
        let streams = (0..<5).map { _ in
            let stream = connection.push(jwt: jwt)
            burst += connection.client.output()
            return stream
        }
        #expect(
            Self.frames(burst) == ["SETTINGS 0"] + streams.flatMap { ["HEADERS \($0)", "DATA \($0)"] },
            "\(Self.frames(burst))")
        connection.write(burst)
        mock.pump()
        #expect(connection.answer(streams[0]).status == 200)
        #expect(streams.filter { connection.answer($0).errorCode == Self.refusedStream }.count == 4)
        #expect(refusals(mock).count == 4)
    }

    @Test("A second stream opened before the first valid JWT is refused (REFUSED_STREAM)")
    func oneStreamBeforeAuthentication() throws {
        let mock = try MemoryMock.protocolOnly()
        let connection = mock.connect(exchangingSettings: false)
        let first = connection.push(jwt: mock.jwt())
        let second = connection.push(jwt: mock.jwt())
        mock.pump()
        #expect(connection.answer(first).status == 200)
        #expect(connection.answer(second).errorCode == Self.refusedStream)
        // The refusal is an event: the transcript and the log say which stream and why.
        let refused = refusals(mock)
        #expect(refused.count == 1)
        if let event = refused.first {
            #expect(TranscriptWriter.render(event).contains(#""event":"stream-refused""#))
            #expect(RequestLog.line(for: event).contains("until a request carries a valid JWT"))
        }
    }

    @Test("PING is answered")
    func ping() throws {
        let mock = try MemoryMock.protocolOnly()
        let connection = mock.connect()
        connection.client.ping()
        mock.pump()
        #expect(connection.client.happenings == ["ping ack"])
    }
}
