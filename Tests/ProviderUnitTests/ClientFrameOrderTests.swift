import APNs
import MockAPNs
import Synchronization
import TestSupport
import Testing

@testable import Provider

/// A push's HEADERS and its DATA go out together (`HTTP2ClientConnection.submitMore`): nghttp2
/// sends every waiting HEADERS before any DATA, and APNs then holds each request without its body
/// until the burst's bodies come.
@Suite struct ClientFrameOrderTests {
    /// A wire that keeps every byte the client sends (cleartext HTTP/2: the mock in memory).
    final class RecordingWire: Wire, @unchecked Sendable {
        let inner: any Wire
        var sent: [UInt8] = []
        init(_ inner: any Wire) { self.inner = inner }
        func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
            sent.append(contentsOf: bytes)
            return inner.send(bytes)
        }
        func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int { inner.receive(into: buffer) }
    }

    /// The type and stream of each frame after the connection preface.
    static func frames(_ bytes: [UInt8]) -> [(type: UInt8, stream: UInt32)] {
        var frames: [(UInt8, UInt32)] = []
        var at = 24
        while at + 9 <= bytes.count {
            let length = Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
            let stream = bytes[at + 5..<at + 9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
            frames.append((bytes[at + 3], stream))
            at += 9 + length
        }
        return frames
    }

    @Test("Most pushes' DATA follows their own HEADERS at once")
    func headersWithTheirData() throws {
        let mock = try MemoryMock(acceptsUnknownTokens: true)
        var configuration = mock.clientConfiguration()
        let dial = try #require(configuration.dial)
        let wires = Mutex<[RecordingWire]>([])
        configuration.dial = { host, port, timeout in
            guard let wire = dial(host, port, timeout) else { return nil }
            let recording = RecordingWire(wire)
            wires.withLock { $0.append(recording) }
            return recording
        }
        let sender = try BulkSender(configuration: configuration)
        let answers = try sender.send(OutgoingPush.voipBatch(2000, seed: 12))
        #expect(answers.allSatisfy { $0.status == 200 })
        let frames = Self.frames(try #require(wires.withLock { $0.first }).sent)
        let headers = frames.indices.filter { frames[$0].type == 1 }
        let followed = headers.filter { index in
            index + 1 < frames.count && frames[index + 1].type == 0 && frames[index + 1].stream == frames[index].stream
        }
        #expect(headers.count == 2000)
        #expect(
            followed.count * 10 >= headers.count * 8,
            "\(followed.count) of \(headers.count) HEADERS had their DATA next")
    }
}
