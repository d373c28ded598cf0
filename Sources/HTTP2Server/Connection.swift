#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One client connection: optional TLS, the HTTP/2 session, and bytes waiting for the socket.
///
/// Owned by one worker thread; the transport feeds it bytes and writes out what it returns.
final class Connection: ConnectionControl, HTTP2SessionDelegate {
    let fd: Int32
    let id: UInt64
    let peer: String
    private let service: any HTTP2Service
    private let limits: HTTP2Limits
    private let tls: TLSSession?
    /// Why a connection is reported refused when the client saw the server's certificate and then
    /// closed without finishing the handshake or sending an alert: it did not trust the server.
    public static let closedAfterCertificate =
        "the client closed the connection after the server's certificate, without finishing the TLS handshake (it did not trust the server)"
    private var session: HTTP2Session?
    /// Set when a cleartext client spoke HTTP/1.1 instead of the HTTP/2 preface.
    private var http1: HTTP1Session?
    /// Cleartext connections that may speak HTTP/1.1 wait for their first bytes to choose.
    private let acceptsHTTP1: Bool
    @exclusivity(unchecked) private var handler: (any HTTP2ConnectionHandler)?
    /// Ciphertext (or cleartext frames) waiting to be written to the socket. The fields touched per
    /// request skip the dynamic exclusivity checks: a connection lives on one worker's thread, and
    /// no access to one of them overlaps another (callgrind: about 100 instructions a check).
    @exclusivity(unchecked) var output: [UInt8] = []
    @exclusivity(unchecked) var outputOffset = 0
    var lastActivity: Double
    /// When the connection was accepted (monotonic seconds).
    let openedAt: Double
    /// Set when the connection must close once `output` is written.
    var closeAfterFlush = false
    /// What the worker watches this connection's socket for (nil before it is added).
    var watched: Interest?
    /// Why the connection ended, for the handler and the log.
    var endReason: String?

    init(
        fd: Int32, id: UInt64, peer: String, tls: TLSContext?, service: any HTTP2Service, limits: HTTP2Limits,
        now: Double, acceptsHTTP1: Bool = false
    ) {
        self.acceptsHTTP1 = acceptsHTTP1 && tls == nil
        self.fd = fd
        self.id = id
        self.peer = peer
        self.service = service
        self.limits = limits
        self.tls = tls.map(TLSSession.init(context:))
        lastActivity = now
        openedAt = now
        if tls == nil, !self.acceptsHTTP1 { startHTTP2() }
    }

    /// Whether the TLS handshake is still under way.
    var isAwaitingHandshake: Bool { tls.map { !$0.isHandshakeComplete } ?? false }

    /// A handshake that did not finish in time (one trickled a byte a second, say): refused, closed.
    func handshakeTimedOut(after seconds: Double) {
        service.refused(peer: peer, why: "the TLS handshake did not finish within \(Int(seconds)) s")
        endReason = "refused"
        closeAfterFlush = true
    }

    /// RFC 9113 §3.4: the client connection preface starts with these bytes.
    private static let prefacePrefix = Array("PRI * HTTP/2.0".utf8)

    var pendingOutput: Int { output.count - outputOffset }

    /// Bytes from the socket. Returns false when the connection must close after flushing.
    func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let tls {
            let ok = tls.receive(bytes) { plaintext in
                if session == nil { startHTTP2() }
                feed(plaintext)
            }
            if tls.isHandshakeComplete, session == nil { startHTTP2() }
            if !ok {
                if session == nil {
                    service.refused(peer: peer, why: tls.failure ?? "TLS handshake failed")
                    endReason = "refused"
                } else if endReason == nil {
                    endReason = tls.failure
                }
            }
        } else if acceptsHTTP1, session == nil, http1 == nil {
            // The first bytes choose: the HTTP/2 preface, or an HTTP/1.1 request line. They may come
            // in pieces, so the choice waits for enough of them, all read so far.
            let all = pendingChoice + Array(bytes)
            pendingChoice = []
            if all.starts(with: Self.prefacePrefix.prefix(all.count)) {
                if all.count < Self.prefacePrefix.count {
                    pendingChoice = all
                    return true
                }
                startHTTP2()
                return all.withUnsafeBytes { received($0) }
            }
            http1 = HTTP1Session(limits: limits)
            startHandler()
            return receiveHTTP1(all)
        } else if http1 != nil {
            // A streamed answer is the connection's last: what the client sends after it is not read.
            if streaming { return true }
            return receiveHTTP1(Array(bytes))
        } else {
            feed(bytes)
        }
        flush()
        return endReason == nil && (session?.isAlive ?? true)
    }

    /// Moves what nghttp2 and TLS have ready into `output`. nghttp2 hands out a frame at a time;
    /// gathering them first makes one TLS record per flush instead of one per frame.
    func flush() {
        if let session, heldInput == nil {
            if let tls {
                session.drainOutput { chunk in plaintextOut.append(contentsOf: chunk) }
                if !plaintextOut.isEmpty {
                    plaintextOut.withUnsafeBytes { tls.send($0) }
                    plaintextOut.removeAll(keepingCapacity: plaintextOut.capacity <= 1 << 16)
                }
            } else {
                session.drainOutput { chunk in output.append(contentsOf: chunk) }
            }
        }
        tls?.drainCiphertext(into: &output)
    }

    /// Frames waiting to be encrypted, gathered by `flush` (unchecked, as `output`: callgrind counted
    /// 80 instructions a flush in the dynamic exclusivity check).
    @exclusivity(unchecked) private var plaintextOut: [UInt8] = []

    private var pendingChoice: [UInt8] = []

    private func startHandler() {
        let info = ConnectionInfo(
            id: id, peer: peer, isTLS: tls != nil, alpn: tls?.alpn, clientCertificateDER: tls?.peerCertificateDER)
        handler = service.open(info)
    }

    private func startHTTP2() {
        if handler == nil { startHandler() }
        let session = HTTP2Session(limits: limits, initialMaxConcurrentStreams: handler!.initialMaxConcurrentStreams)
        session.delegate = self
        self.session = session
        let hold = handler!.holdsSettings
        if hold > 0 {
            heldInput = []
            after(hold) { [self] in releaseHeldInput() }
        }
    }

    /// What the client sent while the connection's first frames were held (`holdsSettings`): nil
    /// when nothing is held.
    private var heldInput: [UInt8]?

    /// HTTP/2 bytes for the session, or kept while the first frames are held.
    private func feed(_ bytes: UnsafeRawBufferPointer) {
        if heldInput != nil {
            heldInput!.append(contentsOf: bytes)
            // A client that sends more than a burst meanwhile is served at once.
            if heldInput!.count >= limits.maximumPendingOutput { releaseHeldInput() }
        } else if session?.receive(bytes) == false {
            endReason = "HTTP/2 error: \(session?.failure ?? "")"
        }
    }

    /// Reads at once everything held: the streams of a burst arrive together, over the limit of
    /// one, as at APNs for a client that did not wait for SETTINGS.
    private func releaseHeldInput() {
        guard let held = heldInput else { return }
        heldInput = nil
        held.withUnsafeBytes { feed($0) }
        if endReason != nil || session?.isAlive == false { closeAfterFlush = true }
        flush()
    }

    private func receiveHTTP1(_ bytes: [UInt8]) -> Bool {
        guard let http1 else { return false }
        bytes.withUnsafeBytes { http1.append($0) }
        return serveBufferedHTTP1()
    }

    /// Answers the HTTP/1.1 requests read so far, one at a time, until the answers waiting to be
    /// written reach the back-pressure limit: pipelined requests are served only as fast as the
    /// client reads (the worker calls this again once the output is written).
    func serveBufferedHTTP1() -> Bool {
        guard let http1 else { return true }
        http1Waits = false
        while !streaming, let request = http1.next() {
            handler?.handle(request, connection: self)
            if pendingOutput >= limits.maximumPendingOutput {
                http1Waits = true
                break
            }
        }
        if let failure = http1.failure, endReason == nil {
            output += HTTP1Session.serialize(
                HTTP2Response(
                    status: http1.failureStatus, headers: [("content-type", "text/plain"), ("connection", "close")],
                    body: Array((failure + "\n").utf8)))
            endReason = "HTTP/1.1: \(failure)"
            return false
        }
        return endReason == nil
    }

    func session(_ session: HTTP2Session, didReceive request: HTTP2Request) {
        if backlog.isEmpty, heldOutput < limits.maximumPendingOutput {
            handler?.handle(request, connection: self)
        } else {
            backlog.append(request)
        }
    }

    /// Complete HTTP/2 requests not handed to the handler yet: while the answers waiting to go out
    /// reach `maximumPendingOutput`, requests wait here (at most MAX_CONCURRENT_STREAMS of them, each
    /// an open stream), served as the client takes its answers, and dropped if it leaves first.
    @exclusivity(unchecked) private var backlog: [HTTP2Request] = []
    /// Set when buffered HTTP/1.1 requests wait for the answers before them to be written.
    private var http1Waits = false

    /// Answers waiting to go out: bytes for the socket, and response bodies nghttp2 has not taken
    /// (a client that keeps its flow-control window shut holds them there).
    var heldOutput: Int { pendingOutput + (session?.outgoingBodyBytes ?? 0) }

    /// Whether requests wait for the answers before them to be taken.
    var hasBacklog: Bool { !backlog.isEmpty || http1Waits }

    /// Serves waiting requests while the answers do not pile up; false when the connection must close.
    func serveBacklog() -> Bool {
        var served = 0
        while served < backlog.count, heldOutput < limits.maximumPendingOutput {
            handler?.handle(backlog[served], connection: self)
            served += 1
        }
        backlog.removeFirst(served)
        let keepOpen = serveBufferedHTTP1()
        flush()
        return keepOpen
    }

    func session(_ session: HTTP2Session, refusedStream streamId: Int32, _ why: StreamRefusal) {
        handler?.refusedStream(streamId, why)
    }

    /// The connection has been idle too long: GOAWAY with the handler's debug data, then close.
    func idleTimeout() {
        guard let handler else {
            endReason = "idle before the handshake finished"
            closeAfterFlush = true
            return
        }
        goAway(lastStreamId: nil, errorCode: 0, debugData: handler.idleGoAwayDebugData(), close: true)
        endReason = "idle timeout"
    }

    /// Server shutdown: GOAWAY with the given debug data, then close.
    func shutdown(debugData: [UInt8]) {
        if session != nil {
            goAway(lastStreamId: nil, errorCode: 0, debugData: debugData, close: true)
        } else {
            closeAfterFlush = true
        }
        endReason = endReason ?? "server shutting down"
    }

    func closed() {
        if handler == nil, tls != nil, endReason != "refused" {
            // A connection that ended before its handshake did is still one the client opened (a
            // provider that cannot load its certificate connects, then gives up): it is reported.
            if tls?.answeredHello == true {
                service.refused(peer: peer, why: Self.closedAfterCertificate + " (\(endReason ?? "closed"))")
            } else {
                service.refused(peer: peer, why: "closed before the TLS handshake finished (\(endReason ?? "closed"))")
            }
        }
        handler?.closed(why: endReason ?? session?.goAwayByLibrary ?? "closed")
        handler = nil
        backlog.removeAll()
        session?.delegate = nil
    }

    // MARK: ConnectionControl

    func respond(streamId: Int32, _ response: HTTP2Response) {
        if http1 != nil {
            output += HTTP1Session.serialize(response)
        } else {
            session?.respond(streamId: streamId, response)
        }
    }

    func reset(streamId: Int32, errorCode: UInt32) {
        session?.reset(streamId: streamId, errorCode: errorCode)
    }

    func setMaxConcurrentStreams(_ value: UInt32) {
        session?.setMaxConcurrentStreams(value)
    }

    /// Set by the worker: schedules an action on this connection's thread.
    var scheduler: ((Double, @escaping () -> Void) -> Void)?

    /// Gives back what the session keeps for streams in flight (the worker's sweep, when idle).
    func trimSpareMemory() { session?.trimSpareMemory() }

    func after(_ seconds: Double, _ action: @escaping () -> Void) {
        scheduler?(seconds, action)
    }

    /// Whether the handler trusted the client (`trust()`); see `untrustedTimeout`.
    var isTrusted = false

    func trust() { isTrusted = true }

    func close() {
        closeAfterFlush = true
        endReason = endReason ?? "closed by the server"
    }

    /// Set once an HTTP/1.1 answer is being streamed (`beginStream`).
    private var streaming = false

    func beginStream(status: Int, headers: [(String, String)]) -> Bool {
        guard http1 != nil, !streaming, endReason == nil else { return false }
        streaming = true
        output += HTTP1Session.head(status: status, headers: headers + [("connection", "close")])
        return true
    }

    func stream(_ bytes: [UInt8]) -> Bool {
        guard streaming, endReason == nil, !closeAfterFlush, pendingOutput < limits.maximumPendingOutput else {
            return false
        }
        output += bytes
        // Written to is alive: the idle timeout counts from the last event sent.
        lastActivity = monotonicSeconds()
        return true
    }

    func goAway(lastStreamId: Int32?, errorCode: UInt32, debugData: [UInt8], close: Bool) {
        session?.goAway(lastStreamId: lastStreamId, errorCode: errorCode, debugData: debugData)
        if close { closeAfterFlush = true }
    }
}

/// One connection fed from memory instead of a socket — the same `Connection` a worker drives, as
/// swift-nio's `EmbeddedChannel` is — so that tests run the fake APNs, TLS included, without
/// sockets or threads (`EmbeddedMock`, Sources/MockAPNs/EmbeddedMock.swift). One thread uses it. What the worker
/// adds around a connection is not here: idle and handshake timeouts, reading only while the
/// output has room, the event loop.
public final class EmbeddedConnection {
    private let connection: Connection
    /// False once it closed.
    public private(set) var isOpen = true

    /// `scheduler` runs what the connection asks to do later (`ConnectionControl.after`), on the
    /// test's clock.
    public init(
        id: UInt64, tls: TLSContext?, service: any HTTP2Service, limits: HTTP2Limits = HTTP2Limits(), now: Double,
        scheduler: @escaping (Double, @escaping () -> Void) -> Void
    ) {
        connection = Connection(fd: -1, id: id, peer: "memory", tls: tls, service: service, limits: limits, now: now)
        connection.scheduler = scheduler
    }

    /// The client's bytes, read as a worker reads a socket's.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        guard isOpen else { return }
        if !connection.received(bytes) { connection.closeAfterFlush = true }
    }

    /// What the server has written since last asked. Taken is written, as a worker's `writeOut`
    /// counts it: requests that waited for room (the backlog) are served then, their answers ready
    /// for the next call.
    public func take() -> [UInt8] {
        guard isOpen else { return [] }
        connection.flush()
        let bytes = Array(connection.output[connection.outputOffset...])
        connection.output.removeAll()
        connection.outputOffset = 0
        if connection.hasBacklog, !connection.closeAfterFlush, !connection.serveBacklog() {
            connection.closeAfterFlush = true
        }
        return bytes
    }

    /// Whether the server closes once its bytes are taken.
    public var closesAfterFlush: Bool { connection.closeAfterFlush }

    /// Whether the TLS handshake is still under way (never, in cleartext).
    public var isAwaitingHandshake: Bool { connection.isAwaitingHandshake }

    /// Closes it, as a worker does when the socket ends (`why`: the client's side of the story).
    public func close(why: String? = nil) {
        guard isOpen else { return }
        if let why { connection.endReason = connection.endReason ?? why }
        isOpen = false
        connection.closed()
    }
}
