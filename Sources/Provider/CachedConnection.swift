import APNs
import CNghttp2
import COpenSSL
import Foundation

/// How a provider sends pushes: the reference's libcurl client, or the cached connection of the
/// `ignores-goaway` profile.
protocol PushTransport: AnyObject {
    func send(_ pushes: [OutgoingPush], retryOnFreshConnection: Bool) throws -> [PushAnswer]
    func providerTokenExpired()
    var signedTokens: Int { get }
}

extension APNsClient: PushTransport {}

/// The transport of the `ignores-goaway` profile (INCIDENTS.md 1): one HTTP/2 connection, opened for
/// the first push and never replaced, by a provider that watches only for error answers.
///
/// After APNs's GOAWAY, nghttp2 refuses to open streams on the connection, and once APNs closes it
/// every push fails without an answer — until the provider restarts. Written on nghttp2's client
/// session rather than libcurl: libcurl opens a new connection after GOAWAY by itself, so the mistake
/// cannot be made with it.
final class CachedConnection: PushTransport {
    private let configuration: ClientConfiguration
    /// APNs's address, from the configuration's URL (nil host: a URL that cannot be used).
    private let scheme: String
    private let host: String?
    private let port: Int
    private var tokens: ProviderTokenCache?
    private var socket: Int32 = -1
    private var context: OpaquePointer?
    private var tls: OpaquePointer?
    /// The TLS session's memory BIOs (owned by `tls`): bytes from the socket, bytes for it.
    private var incoming: OpaquePointer?
    private var outgoing: OpaquePointer?
    private var session: OpaquePointer?
    /// Why the connection cannot carry pushes any more; every later push fails with it.
    private var broken: String?
    /// Streams waiting for their answer, and their request bodies.
    fileprivate var answers: [Int32: PushAnswer] = [:]
    fileprivate var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    fileprivate var finished: [Int32: PushAnswer] = [:]
    fileprivate var responseBodies: [Int32: [UInt8]] = [:]

    init(configuration: ClientConfiguration) throws {
        self.configuration = configuration
        let url = URL(string: configuration.url)
        scheme = url?.scheme ?? "https"
        host = url?.host
        port = url?.port ?? 443
        tokens = try ProviderTokenCache.load(for: configuration.authentication)
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        if let tls { SSL_free(tls) }
        if let context { SSL_CTX_free(context) }
        if socket >= 0 { close(socket) }
    }

    var signedTokens: Int { tokens?.signed ?? 0 }

    func providerTokenExpired() { tokens?.expired() }

    /// Sends the pushes on the cached connection; answers come back in the same order. There is no
    /// retry on a fresh connection: that is the mistake.
    func send(_ pushes: [OutgoingPush], retryOnFreshConnection: Bool) throws -> [PushAnswer] {
        if session == nil, broken == nil { open() }
        let authorization = try tokens?.authorization(at: Date().timeIntervalSince1970)
        var streams: [Int32?] = []
        for push in pushes {
            guard broken == nil, let session else {
                streams.append(nil)
                continue
            }
            streams.append(submit(push, authorization: authorization, on: session))
        }
        exchange()
        return zip(pushes, streams).map { _, stream in
            guard let stream, let answer = finished.removeValue(forKey: stream) else {
                return PushAnswer(status: 0, transportError: "not sent: \(broken ?? "the connection is gone")")
            }
            return answer
        }
    }

    /// Queues one request; nghttp2 holds it while MAX_CONCURRENT_STREAMS streams are open.
    private func submit(_ push: OutgoingPush, authorization: String?, on session: OpaquePointer) -> Int32? {
        var fields: [(String, String)] = [
            (":method", push.method), (":scheme", scheme), (":authority", "\(host ?? "localhost"):\(port)"),
            (":path", "/3/device/\(push.deviceToken)"),
        ]
        fields += push.headers.map { ($0.name.lowercased(), $0.value) }
        if let authorization, !fields.contains(where: { $0.0 == "authorization" }) {
            fields.append(("authorization", authorization))
        }
        var bytes: [UInt8] = []
        var spans: [(Range<Int>, Range<Int>)] = []
        for (name, value) in fields {
            let start = bytes.count
            bytes += Array(name.utf8)
            let middle = bytes.count
            bytes += Array(value.utf8)
            spans.append((start..<middle, middle..<bytes.count))
        }
        let stream: Int32 = bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            // nghttp2 copies names and values when the request is submitted.
            let nva = spans.map {
                nghttp2_nv(
                    name: base + $0.0.lowerBound, value: base + $0.1.lowerBound, namelen: $0.0.count,
                    valuelen: $0.1.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readRequestBody)
            return nghttp2_submit_request(session, nil, nva, nva.count, &provider, nil)
        }
        guard stream > 0 else { return nil }
        answers[stream] = PushAnswer(status: 0)
        bodies[stream] = (push.payload, 0)
        return stream
    }

    /// Writes what nghttp2 has queued and reads answers until every stream is settled or the
    /// connection fails. GOAWAY is read and ignored.
    private func exchange() {
        guard let session else { return }
        // Once a write fails, what APNs sent before closing (answers, its GOAWAY) is still read.
        var cannotWrite = false
        while broken == nil, !answers.isEmpty {
            while !cannotWrite {
                var data: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &data)
                if length < 0 { return fail(String(cString: nghttp2_strerror(Int32(length)))) }
                if length == 0 { break }
                cannotWrite = !write(UnsafeRawBufferPointer(start: data, count: length))
            }
            if answers.isEmpty { break }
            var buffer = [UInt8](repeating: 0, count: 16_384)
            let count = buffer.withUnsafeMutableBytes { read(into: $0) }
            if count <= 0 { return fail(count == 0 ? "APNs closed the connection" : "no answer in time") }
            let consumed = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, count) }
            if consumed < 0 { return fail(String(cString: nghttp2_strerror(Int32(consumed)))) }
        }
    }

    /// The connection is unusable: every stream still waiting fails, and so will every later push.
    private func fail(_ why: String) {
        broken = why
        for (stream, var answer) in answers {
            answer.transportError = why
            finished[stream] = answer
        }
        answers = [:]
        bodies = [:]
        responseBodies = [:]
    }

    fileprivate func streamClosed(_ stream: Int32, errorCode: UInt32) {
        guard var answer = answers.removeValue(forKey: stream) else { return }
        bodies[stream] = nil
        answer.read(body: responseBodies.removeValue(forKey: stream) ?? [])
        if answer.status == 0 || errorCode != 0 {
            answer.status = 0
            answer.transportError = "stream closed: \(String(cString: nghttp2_http2_strerror(errorCode)))"
        }
        finished[stream] = answer
    }

    fileprivate func notSent(_ stream: Int32, why: Int32) {
        guard var answer = answers.removeValue(forKey: stream) else { return }
        bodies[stream] = nil
        answer.transportError = "not sent: \(String(cString: nghttp2_strerror(why)))"
        finished[stream] = answer
    }

    fileprivate func header(_ stream: Int32, name: String, value: String) {
        guard answers[stream] != nil else { return }
        if name == ":status" {
            answers[stream]?.status = Int(value) ?? 0
        } else {
            answers[stream]?.headers.append((name, value))
            if name == "apns-id" { answers[stream]?.apnsId = value }
        }
    }

    fileprivate func body(_ stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard answers[stream] != nil else { return }
        responseBodies[stream, default: []].append(contentsOf: bytes)
    }

    fileprivate func readBody(_ stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> (Int, Bool) {
        guard let body = bodies[stream] else { return (0, true) }
        let count = min(length, body.bytes.count - body.offset)
        body.bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + body.offset, count: count) }
        bodies[stream]?.offset += count
        return (count, body.offset + count == body.bytes.count)
    }

    // MARK: The socket, TLS and the session

    private func open() {
        guard let host else {
            broken = "bad URL \(configuration.url)"
            return
        }
        socket = connectTCP(host: host, port: port)
        guard socket >= 0 else {
            broken = "cannot connect to \(host):\(port)"
            return
        }
        var timeout = timeval(tv_sec: Int(configuration.timeout), tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if scheme == "https" {
            if let why = startTLS(host: host) {
                broken = why
                return
            }
        }
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, onNotSent)
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, 1)
    }

    private func connectTCP(host: String, port: Int) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return -1 }
        defer { freeaddrinfo(found) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            let fd = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            if fd >= 0, connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return fd
            }
            if fd >= 0 { close(fd) }
            entry = address.pointee.ai_next
        }
        return -1
    }

    /// TLS 1.2+, the server verified against the CA, ALPN h2, the client certificate when told.
    private func startTLS(host: String) -> String? {
        context = SSL_CTX_new(TLS_client_method())
        _ = ringside_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let ca = configuration.caFile {
            SSL_CTX_load_verify_locations(context, ca, nil)
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
        if case .certificate(let certificate, let key) = configuration.authentication {
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1,
                SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1
            else { return "cannot load the client certificate \(certificate)" }
        }
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        tls = SSL_new(context)
        if X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(tls), host) != 1 {
            _ = SSL_set1_host(tls, host)
            // SSL_set_tlsext_host_name is a macro; OpenSSL copies the name.
            _ = host.withCString {
                SSL_ctrl(
                    tls, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name),
                    UnsafeMutableRawPointer(mutating: $0))
            }
        }
        // Memory BIOs: OpenSSL's socket BIO writes with write(2), which raises SIGPIPE when APNs has
        // closed the connection; here every byte goes out through send(MSG_NOSIGNAL).
        let incoming = BIO_new(BIO_s_mem())
        let outgoing = BIO_new(BIO_s_mem())
        _ = ringside_BIO_set_mem_eof_return(incoming, -1)  // empty means "wait for more", not EOF
        self.incoming = incoming
        self.outgoing = outgoing
        SSL_set_bio(tls, incoming, outgoing)
        SSL_set_connect_state(tls)
        while true {
            let result = SSL_do_handshake(tls)
            guard flushTLS() else { return "APNs closed the connection during the TLS handshake" }
            if result == 1 { return nil }
            guard SSL_get_error(tls, result) == SSL_ERROR_WANT_READ else {
                return "TLS handshake failed: \(CryptoError.openSSLQueue())"
            }
            guard fillTLS() > 0 else { return "APNs closed the connection during the TLS handshake" }
        }
    }

    /// Sends what OpenSSL has written into `outgoing`.
    private func flushTLS() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while ringside_BIO_pending(outgoing) > 0 {
            let count = Int(BIO_read(outgoing, &chunk, Int32(chunk.count)))
            guard count > 0, chunk.withUnsafeBytes({ sendAll(UnsafeRawBufferPointer(rebasing: $0[..<count])) }) else {
                return false
            }
        }
        return true
    }

    /// Reads from the socket into `incoming`: the count, 0 when APNs closed, -1 on a timeout or error.
    private func fillTLS() -> Int {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = recv(socket, &chunk, chunk.count, 0)
        if count > 0 { BIO_write(incoming, chunk, Int32(count)) }
        return count
    }

    private func sendAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(socket, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let tls else { return sendAll(bytes) }
        // A memory BIO takes everything at once.
        guard SSL_write(tls, bytes.baseAddress, Int32(bytes.count)) == Int32(bytes.count) else { return false }
        return flushTLS()
    }

    /// Bytes read, 0 when the peer closed, -1 on a timeout or an error.
    private func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let tls else { return recv(socket, buffer.baseAddress, buffer.count, 0) }
        while true {
            let count = Int(SSL_read(tls, buffer.baseAddress, Int32(buffer.count)))
            guard flushTLS() else { return 0 }
            if count > 0 { return count }
            guard SSL_get_error(tls, Int32(count)) == SSL_ERROR_WANT_READ else { return 0 }
            let filled = fillTLS()
            if filled <= 0 { return filled }
        }
    }

    fileprivate static func with<T>(_ userData: UnsafeMutableRawPointer?, _ body: (CachedConnection) -> T) -> T {
        body(Unmanaged<CachedConnection>.fromOpaque(userData!).takeUnretainedValue())
    }
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    CachedConnection.with(userData) {
        $0.header(
            frame.pointee.hd.stream_id,
            name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
            value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
    }
    return 0
}

private let onData: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, userData in
    CachedConnection.with(userData) { $0.body(stream, UnsafeBufferPointer(start: data, count: length)) }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, stream, errorCode, userData in
    CachedConnection.with(userData) { $0.streamClosed(stream, errorCode: errorCode) }
    return 0
}

/// A request nghttp2 would not send (after GOAWAY: NGHTTP2_ERR_START_STREAM_NOT_ALLOWED).
private let onNotSent: nghttp2_on_frame_not_send_callback = { _, frame, code, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    CachedConnection.with(userData) { $0.notSent(frame.pointee.hd.stream_id, why: code) }
    return 0
}

private let readRequestBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, userData in
    let (count, done) = CachedConnection.with(userData) { $0.readBody(stream, into: buffer!, length: length) }
    if done { flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    return count
}
