/// What the transport knows of a connection when it hands it to the service.
public struct ConnectionInfo: Sendable {
    public var id: UInt64
    /// "address:port" of the client.
    public var peer: String
    public var isTLS: Bool
    /// "h2" when negotiated by ALPN, nil for prior knowledge (or cleartext).
    public var alpn: String?
    /// The verified client certificate, DER-encoded.
    public var clientCertificateDER: [UInt8]?
}

/// The application behind the server (the mock APNs): one handler per connection.
public protocol HTTP2Service: Sendable {
    /// A connection finished its handshake. Called on the worker thread that owns it.
    func open(_ connection: ConnectionInfo) -> any HTTP2ConnectionHandler
    /// A client was turned away before HTTP/2 began (not TLS, a refused certificate, ALPN without h2).
    func refused(peer: String, why: String)
    /// A worker finished a turn of its event loop: what the service gathered during it (log lines)
    /// can be written once. Called on that worker's thread.
    func turnEnded()
}

extension HTTP2Service {
    public func turnEnded() {}
}

extension HTTP2ConnectionHandler {
    public var holdsSettings: Double { 0 }
}

/// Serves one connection; every call comes from the connection's worker thread.
public protocol HTTP2ConnectionHandler: AnyObject {
    /// MAX_CONCURRENT_STREAMS of the connection's first SETTINGS.
    var initialMaxConcurrentStreams: UInt32 { get }
    /// Seconds the connection's first frames wait after its handshake, what the client sends
    /// meanwhile read at once when they go (a fault: a burst sent before SETTINGS, made certain).
    var holdsSettings: Double { get }
    /// A complete request. Answer through `connection` (now or later on this thread).
    func handle(_ request: HTTP2Request, connection: ConnectionControl)
    /// The connection was idle for the configured time; the returned debug data goes in its GOAWAY.
    func idleGoAwayDebugData() -> [UInt8]
    /// The connection is gone; `why` says how it ended.
    func closed(why: String)
    /// A stream was refused unprocessed (RST_STREAM REFUSED_STREAM).
    func refusedStream(_ streamId: Int32, _ why: StreamRefusal)
}

/// Why a stream was refused unprocessed.
public enum StreamRefusal: Sendable, Equatable {
    /// By nghttp2: over MAX_CONCURRENT_STREAMS, or opened after GOAWAY.
    case overLimitOrAfterGoAway
    /// The connection's requests still arriving held more than `HTTP2Limits.maximumHeldPerConnection`.
    case heldTooMuch(limit: Int)
}

/// What a handler may do to its connection.
public protocol ConnectionControl: AnyObject {
    func respond(streamId: Int32, _ response: HTTP2Response)
    func reset(streamId: Int32, errorCode: UInt32)
    func setMaxConcurrentStreams(_ value: UInt32)
    /// Sends GOAWAY; with `close`, the connection closes once it is written.
    func goAway(lastStreamId: Int32?, errorCode: UInt32, debugData: [UInt8], close: Bool)
    /// Runs `action` on this connection's thread after `seconds`, if the connection is still open.
    /// The action is dropped when the connection closes, so it may hold the connection and its
    /// handler strongly (a weak reference would give each a side table, and slow every retain).
    func after(_ seconds: Double, _ action: @escaping () -> Void)
    /// Closes the connection once what is queued is written.
    func close()
    /// The client proved who it is (an authenticated request): `untrustedTimeout` no longer applies.
    func trust()
    /// Starts an answer whose body is written as it comes (Server-Sent Events): on HTTP/1.1 only,
    /// where the body ends when the connection closes, which then carries nothing else. False on
    /// HTTP/2: the caller answers otherwise.
    func beginStream(status: Int, headers: [(String, String)]) -> Bool
    /// More of a streamed body; false once the client stopped taking it (its unread output at the
    /// limit) or the connection is closing.
    func stream(_ bytes: [UInt8]) -> Bool
}

extension ConnectionControl {
    public func beginStream(status: Int, headers: [(String, String)]) -> Bool { false }
    public func stream(_ bytes: [UInt8]) -> Bool { false }
}
