import APNs

/// Many pushes as fast as one connection carries them, on the built-in provider's nghttp2 session
/// (`bench/provider.sh`): a batch is submitted at once and nghttp2 keeps as many streams in flight as
/// APNs's SETTINGS allow (one until the first valid JWT, then 1000). A push the connection lost
/// (GOAWAY above its stream, a broken connection, a refused stream) is sent again on a new one, at
/// most `attempts` times in all. With `configuration.connections` above one, consecutive slices go
/// out at once, one on each connection, all driven from the caller's thread (as h2load drives its
/// connections); what is sent again goes lane by lane. libcurl (`APNsClient`) stays where a user
/// meets it: `ringside send`.
public final class BulkSender {
    /// One per connection, each with its own JWT.
    private let lanes: [ConnectionKeeper]
    public let attempts: Int

    public init(configuration: ClientConfiguration, attempts: Int = 3) throws {
        lanes = try (0..<max(1, configuration.connections)).map { _ in
            var options = HTTP2ClientConnection.Options()
            options.submitsWhenStreamsFree = true
            return try ConnectionKeeper(configuration: configuration, options: options)
        }
        self.attempts = max(1, attempts)
    }

    public var connectionsOpened: Int { lanes.reduce(0) { $0 + $1.connectionsOpened } }
    public var signedTokens: Int { lanes.reduce(0) { $0 + $1.signedTokens } }

    /// Answers in the order of `pushes`; `attempts` says how many times each was sent.
    public func send(_ pushes: [OutgoingPush]) throws -> [PushAnswer] {
        let slices = laneSlices(pushes, lanes: lanes.count)
        if slices.count <= 1 { return try send(pushes, on: lanes[0], answered: lanes[0].send(pushes)) }
        // The first attempt on every lane at once; a lane stopped by its policy sends nothing.
        var sent: [(HTTP2ClientConnection, [OutgoingPush], authorization: String?)] = []
        var sentLanes: [Int] = []
        var answers = slices.map { [PushAnswer](repeating: PushAnswer(status: 0), count: $0.count) }
        for (index, slice) in slices.enumerated() {
            guard let (connection, authorization) = try lanes[index].nextSend() else {
                answers[index] = lanes[index].stoppedAnswers(slice.count)
                continue
            }
            sent.append((connection, slice, authorization))
            sentLanes.append(index)
        }
        for (index, answered) in zip(sentLanes, HTTP2ClientConnection.exchange(together: sent)) {
            answers[index] = lanes[index].marked(answered)
        }
        return try slices.indices.flatMap { index in
            try send(slices[index], on: lanes[index], answered: answers[index])
        }
    }

    /// `answers` to the first attempt of `pushes` on `transport`, and the lost ones sent again.
    private func send(
        _ pushes: [OutgoingPush], on transport: ConnectionKeeper, answered answers: [PushAnswer]
    ) throws -> [PushAnswer] {
        var answers = answers
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
