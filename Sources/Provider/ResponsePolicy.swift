import APNs

/// What a provider does after an answer, as Apple says ([RESP]; docs/apns-facts.md §3.4).
public enum NextStep: Sendable, Equatable {
    case delivered
    /// Never retry: forget the device token (`BadDeviceToken`, `DeviceTokenNotForTopic`, `Unregistered`,
    /// `ExpiredToken`); for 410, unless the device registered again after `timestamp`.
    case forgetToken(Reason)
    /// Never retry as is: the request or the credentials are wrong.
    case fix(Reason)
    /// Sign a new JWT and retry once (`ExpiredProviderToken`).
    case refreshTokenAndRetry
    /// Retry after this many seconds (429, 5xx): bounded exponential back-off with jitter.
    case retry(after: Double)
    /// Open a new connection and send again after this many seconds (GOAWAY, a transport error): at
    /// once the first time, then backing off, since APNs may treat rapid reconnects as an attack
    /// ([CONN]) and a refused handshake (an expired certificate) does not heal in milliseconds.
    case reconnectAndRetry(after: Double)
    /// Attempts exhausted.
    case giveUp
}

public struct ResponsePolicy: Sendable {
    public var maximumAttempts = 4
    public var baseDelay: Double = 0.5
    public var maximumDelay: Double = 30

    public init() {}

    /// The step after an answer to the `attempt`-th try (1 = first); `jitter` in 0..<1.
    public func next(status: Int, reason: Reason?, attempt: Int, jitter: Double) -> NextStep {
        if status == 200 { return .delivered }
        guard attempt < maximumAttempts else { return .giveUp }
        let reconnect = NextStep.reconnectAndRetry(after: attempt == 1 ? 0 : backOff(attempt - 1, jitter))
        if status == 0 { return reconnect }
        switch reason {
        case .badDeviceToken?, .deviceTokenNotForTopic?, .unregistered?, .expiredToken?:
            return .forgetToken(reason!)
        case .expiredProviderToken?:
            return attempt == 1 ? .refreshTokenAndRetry : .giveUp
        case .shutdown?, .idleTimeout?:
            return reconnect
        default: break
        }
        if status == 429 || status >= 500 { return .retry(after: backOff(attempt, jitter)) }
        return .fix(reason ?? .badPath)
    }

    /// Bounded exponential back-off with "equal jitter": half the step fixed, half random.
    func backOff(_ attempt: Int, _ jitter: Double) -> Double {
        min(maximumDelay, baseDelay * Double(1 << min(attempt - 1, 16))) * (0.5 + jitter / 2)
    }
}
