import CNghttp2
import Testing

@testable import HTTP2Server

/// A server session's arena keeps what the streams a client may open take (2 KB a stream it
/// allows), and gives it back when asked (the worker asks a connection quiet for a second): a
/// provider with a thousand streams in flight sent most blocks to malloc and back when every
/// session kept 32 KB.
@Suite struct SessionArenaKeepTests {
    /// Answers every request at once.
    final class Answerer: HTTP2SessionDelegate {
        var answered = 0
        func session(_ session: HTTP2Session, didReceive request: HTTP2Request) {
            answered += 1
            session.respond(streamId: request.streamId, HTTP2Response(status: 200))
        }
        func session(_ session: HTTP2Session, refusedStream streamId: Int32, _ why: StreamRefusal) {}
    }

    /// A session that received `streams` requests in one read and answered them all.
    static func burst(_ streams: Int, allowed: UInt32) -> (HTTP2Session, Answerer) {
        let session = HTTP2Session(limits: HTTP2Limits(), initialMaxConcurrentStreams: allowed)
        let answerer = Answerer()
        session.delegate = answerer
        let feed = HoldingLimitsTests.feeder(session)
        var bytes: [UInt8] = []
        for stream in stride(from: Int32(1), through: Int32(2 * streams - 1), by: 2) {
            bytes += HoldingLimitsTests.frame(type: 1, flags: 5, stream: stream, HoldingLimitsTests.request)
        }
        feed(bytes)
        return (session, answerer)
    }

    @Test("300 streams at once: their blocks are kept for the next, then given back when asked")
    func keptForTheStreamsInFlight() {
        let (session, answerer) = Self.burst(300, allowed: 1000)
        #expect(answerer.answered == 300)
        #expect(session.arenaKept > 100 << 10, "kept \(session.arenaKept) bytes after 300 streams")
        #expect(session.arenaKept <= ringside_arena_limit(1000))
        session.trimSpareMemory()
        #expect(session.arenaKept <= 32 << 10, "kept \(session.arenaKept) bytes once trimmed")
    }

    @Test("A session that allows ten streams keeps the shim's 32 KB at most")
    func fewStreamsFewBytes() {
        let (session, answerer) = Self.burst(10, allowed: 10)
        #expect(answerer.answered == 10)
        #expect(session.arenaKept <= 32 << 10)
        #expect(ringside_arena_limit(10) == 32 << 10)
        #expect(ringside_arena_limit(Int(UInt32.max)) == Int(UInt32.max) * 2048)
        #expect(ringside_arena_limit(.max) == .max)
    }
}
