import APNs

/// What the built-in provider does when a push got no HTTP answer, or a connection keeps failing:
/// one table, one row per failure (issue 10; docs/apns-facts.md §3.4, §5, §6).
public enum ConnectionDecision: Sendable, Equatable {
    /// Not processed and nothing is wrong with the connection (REFUSED_STREAM over the stream limit):
    /// send it again at once; nghttp2 now holds it until a stream is free.
    case sendAgainAtOnce
    /// A transient failure: a new connection, at once the first time, then backing off ([CONN]: APNs
    /// may treat rapid reconnects as an attack).
    case reconnect
    /// This connection keeps failing while nothing else changed: a new connection for the next try.
    case retire
    /// A configuration error no retry heals: send nothing more on it, say why once.
    case stop(String)
}

public enum ConnectionPolicy {
    /// GOAWAY reasons that mean the credentials or the environment are wrong ([RESP], docs/apns-facts.md §5).
    public static let permanentGoAways: Set<Reason> = [.badCertificate, .badCertificateEnvironment, .forbidden]

    /// Consecutive 5xx answers on one connection after which it is retired: a stale or sick
    /// connection (a load balancer's half-dead backend) answers every request with 500, a new one does not.
    public static let sickAfterServerErrors = 2

    /// The decision for a push that got no HTTP answer.
    public static func decide(_ failure: TransportFailure) -> ConnectionDecision {
        switch failure {
        case .goAway(let reason?) where permanentGoAways.contains(reason):
            return .stop("APNs ended the connection with GOAWAY \(reason.wire): \(reason.whatToDo)")
        case .goAway:
            // Shutdown, IdleTimeout, InternalServerError, ServiceUnavailable, none: APNs is going
            // away or busy, and streams above the last-stream-id were never processed.
            return .reconnect
        case .handshakeRefused(let why) where why.contains("certificate") || why.contains("alert"):
            // An expired, revoked or untrusted client certificate, or a server that is not APNs
            // (its certificate does not lead to the configured CA): nothing may be sent.
            return .stop("the TLS handshake failed (\(why)); nothing is sent until the configuration is fixed")
        case .handshakeRefused, .connectionBroke:
            return .reconnect
        case .streamRefused:
            return .sendAgainAtOnce
        case .stopped(let why):
            return .stop(why)
        }
    }

    /// The decision after an HTTP answer, given how many 5xx answers in a row its connection gave.
    public static func decide(serverErrorsInARow count: Int) -> ConnectionDecision? {
        count >= sickAfterServerErrors ? .retire : nil
    }
}
