import APNs

/// Many pushes as fast as one connection carries them, on the built-in provider's nghttp2 session
/// (`bench/provider.sh`): a batch is submitted at once and nghttp2 keeps as many streams in flight as
/// APNs's SETTINGS allow (one until the first valid JWT, then 1000). A push the connection lost
/// (GOAWAY above its stream, a broken connection, a refused stream) is sent again on a new one, at
/// most `attempts` times in all. With `configuration.connections` above one, consecutive slices go
/// out at once, a connection and a thread each, as `APNsClient` does. libcurl (`APNsClient`) stays
/// where a user meets it: `ringside send`.
public final class BulkSender {
    /// One per connection, each with its own JWT.
    private let lanes: [ConnectionKeeper]
    public let attempts: Int

    public init(configuration: ClientConfiguration, attempts: Int = 3) throws {
        lanes = try (0..<max(1, configuration.connections)).map { _ in
            try ConnectionKeeper(configuration: configuration, options: HTTP2ClientConnection.Options())
        }
        self.attempts = max(1, attempts)
    }

    public var connectionsOpened: Int { lanes.reduce(0) { $0 + $1.connectionsOpened } }
    public var signedTokens: Int { lanes.reduce(0) { $0 + $1.signedTokens } }

    /// Answers in the order of `pushes`; `attempts` says how many times each was sent.
    public func send(_ pushes: [OutgoingPush]) throws -> [PushAnswer] {
        try sendInLanes(lanes, pushes) { transport, slice in try send(slice, on: transport) }
    }

    private func send(_ pushes: [OutgoingPush], on transport: ConnectionKeeper) throws -> [PushAnswer] {
        var answers = try transport.send(pushes)
        var attempt = 1
        while attempt < attempts {
            let lost = answers.indices.filter { answers[$0].status == 0 && Self.isWorthAnotherTry(answers[$0]) }
            if lost.isEmpty { break }
            attempt += 1
            let again = try transport.send(lost.map { pushes[$0] })
            for (index, answer) in zip(lost, again) {
                answers[index] = answer
                answers[index].attempts = attempt
            }
        }
        return answers
    }

    /// Lost on the way, not refused: the connection policy's transient failures.
    private static func isWorthAnotherTry(_ answer: PushAnswer) -> Bool {
        switch answer.failure {
        case .goAway, .connectionBroke, .streamRefused: return true
        case .handshakeRefused, .stopped, nil: return false
        }
    }
}
