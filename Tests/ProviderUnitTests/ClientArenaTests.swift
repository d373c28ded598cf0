import APNs
import CNghttp2
import MockAPNs
import TestSupport
import Testing

@testable import Provider

/// The client's nghttp2 blocks serve the next pushes (`ringside_arena_limit`): the
/// arena keeps what the pushes in flight take, from one batch to the next, and is trimmed when a
/// smaller batch starts.
@Suite struct ClientArenaTests {
    @Test("A batch's blocks are kept for the next batch of its size, and trimmed for a smaller one")
    func blocksServeTheNextBatch() throws {
        let mock = try MemoryMock(acceptsUnknownTokens: true) { $0.plaintext = false }
        let configuration = mock.clientConfiguration()
        var tokens = try #require(try ProviderTokenCache.load(for: configuration.authentication))
        let authorization = try tokens.authorization(at: configuration.now())
        // As the bulk sender opens its connections.
        var options = HTTP2ClientConnection.Options()
        options.submitsWhenStreamsFree = true
        let connection = HTTP2ClientConnection(configuration: configuration, options: options)
        let size = 3000
        let first = connection.exchange(OutgoingPush.voipBatch(size, seed: 11), authorization: authorization)
        #expect(first.allSatisfy { $0.status == 200 }, "\(Set(first.map(\.status)))")
        let afterFirst = connection.arenaFigures
        let second = connection.exchange(OutgoingPush.voipBatch(size, seed: 12), authorization: authorization)
        #expect(second.allSatisfy { $0.status == 200 }, "\(Set(second.map(\.status)))")
        let afterSecond = connection.arenaFigures
        // A push takes about eight blocks; the streams open at once vary a little from batch to batch.
        #expect(
            afterSecond.misses - afterFirst.misses <= size / 100,
            "the second batch of \(size) took \(afterSecond.misses - afterFirst.misses) blocks from malloc; the lists kept \(afterFirst.kept) bytes"
        )
        #expect(afterSecond.kept <= ringside_arena_limit(size))
        _ = connection.exchange(OutgoingPush.voipBatch(10, seed: 13), authorization: authorization)
        let small = ringside_arena_limit(10)
        #expect(connection.arenaFigures.kept <= small, "kept \(connection.arenaFigures.kept) bytes for 10 pushes")
    }
}
