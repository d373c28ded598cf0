import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether and how the server asks for a client certificate.
public enum ClientCertificateMode: String, Sendable {
    /// Never ask (token authentication only).
    case none
    /// Ask; a client may send none (APNs accepts both kinds of connection on one port).
    case optional
    /// Ask and refuse a client that sends none.
    case required
}

/// The server's TLS configuration: one OpenSSL `SSL_CTX` shared by every connection.
/// Unchecked Sendable: `context` is a `let` SSL_CTX, configured in init and read-only after (`SSL_new` per
/// connection), which OpenSSL allows from many threads.
public final class TLSContext: @unchecked Sendable {
    // SSL_CTX is safe to share once configured: connections only read it.
    let context: OpaquePointer

    /// - Parameters:
    ///   - certificateFile/keyFile: the server's PEM certificate chain and key.
    ///   - trustedCAFile: the CA client certificates must chain to (needed unless `clientCertificates` is `.none`).
    public init(
        certificateFile: String, keyFile: String, trustedCAFile: String?, clientCertificates: ClientCertificateMode
    ) throws(TLSError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError("SSL_CTX_new failed") }
        self.context = context
        // [SEND]: TLS 1.2 or later.
        _ = ringside_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = ringside_SSL_CTX_set_options(context, ringside_SSL_OP_NO_RENEGOTIATION())
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            throw TLSError("cannot load server certificate \(certificateFile): \(TLSError.queue())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError("cannot load server key \(keyFile): \(TLSError.queue())")
        }
        if clientCertificates != .none {
            guard let trustedCAFile, SSL_CTX_load_verify_locations(context, trustedCAFile, nil) == 1 else {
                throw TLSError("cannot load the CA for client certificates: \(TLSError.queue())")
            }
            let names = SSL_load_client_CA_file(trustedCAFile)
            SSL_CTX_set_client_CA_list(context, names)
            var mode = SSL_VERIFY_PEER
            if clientCertificates == .required { mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT }
            SSL_CTX_set_verify(context, mode, nil)
        }
        // Resumed sessions (a provider that caches them reconnects after a GOAWAY or an idle
        // timeout) need a session id context once the server asks for client certificates: without
        // one OpenSSL refuses to resume ("session id context uninitialized") and fails the handshake.
        let sessionContext = Array("ringside-apns".utf8)
        _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
        SSL_CTX_set_alpn_select_cb(context, selectALPN, nil)
    }

    deinit { SSL_CTX_free(context) }
}

/// ALPN: choose `h2` when offered; refuse a client that offers ALPN without `h2` (it would speak
/// HTTP/1.1). A client offering no ALPN never reaches this callback and speaks HTTP/2 with prior
/// knowledge, as aioapns and pushy do (docs/apns-facts.md §1.2).
private let selectALPN:
    @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { _, out, outLength, offered, offeredLength, _ in
        guard let offered else { return ringside_SSL_TLSEXT_ERR_ALERT_FATAL() }
        var index = 0
        while index < Int(offeredLength) {
            let length = Int(offered[index])
            if length == 2, index + 2 < Int(offeredLength), offered[index + 1] == UInt8(ascii: "h"),
                offered[index + 2] == UInt8(ascii: "2")
            {
                out?.pointee = offered + index + 1
                outLength?.pointee = 2
                return ringside_SSL_TLSEXT_ERR_OK()
            }
            index += 1 + length
        }
        return ringside_SSL_TLSEXT_ERR_ALERT_FATAL()
    }

/// The BIO method every session's ciphertext goes through (made once; OpenSSL keeps a pointer to it).
/// Unsafe: written once, before any session exists, and only read after.
nonisolated(unsafe) private let ciphertextMethod: OpaquePointer? = ringside_tls_bio_method_new()

/// A TLS server session over one in-memory BIO of our own (`ringside_tls_buffers`): ciphertext in
/// and out, plaintext in and out. It never sees a socket, so a test can drive it in memory.
public final class TLSSession {
    private let ssl: OpaquePointer
    /// What the BIO reads from and writes to; freed after the SSL (and its BIO) are.
    private let buffers: UnsafeMutablePointer<ringside_tls_buffers>
    /// Ciphertext OpenSSL left unread at the end of a receive, read first by the next (OpenSSL keeps
    /// a partial record itself, so in practice this stays empty).
    private var carried: [UInt8] = []
    public private(set) var isHandshakeComplete = false
    /// Plaintext read buffer, reused: one TLS record at most (16 KiB).
    private var readBuffer = [UInt8](repeating: 0, count: 16384)
    /// Why the handshake or the session failed, in words for the log.
    public private(set) var failure: String?
    /// Whether the server answered a ClientHello (its certificate went out) before the handshake
    /// completed: a client that closes then, without an alert, refused the server (aioapns does,
    /// seeing an untrusted certificate); one that closes before never began a handshake (a probe).
    public private(set) var answeredHello = false

    public init(context: TLSContext) {
        ssl = SSL_new(context.context)
        buffers = .allocate(capacity: 1)
        buffers.initialize(to: ringside_tls_buffers())
        let bio = BIO_new(ciphertextMethod)
        BIO_set_data(bio, buffers)
        SSL_set_bio(ssl, bio, bio)  // one reference, owned by the SSL for both directions
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        free(buffers.pointee.out)
        buffers.deallocate()
    }

    /// Feeds ciphertext from the client: runs the handshake until it completes, then decrypts every
    /// whole record and calls `plaintext` with each one's bytes (valid only during the call; none
    /// while the handshake is under way). What OpenSSL has to send back (handshake records, alerts)
    /// waits for `drainCiphertext`; bytes it did not consume are kept and read first next time.
    /// Returns true while the session is healthy, including when it needs more bytes; false, with
    /// `failure` set, when the handshake fails, the client closed TLS (close_notify) or a read fails.
    public func receive(_ ciphertext: UnsafeRawBufferPointer, plaintext: (UnsafeRawBufferPointer) -> Void) -> Bool {
        if !carried.isEmpty {
            let all = carried + Array(ciphertext)
            carried = []
            return all.withUnsafeBytes { receive($0, plaintext: plaintext) }
        }
        // OpenSSL reads these bytes in place, during this call only.
        buffers.pointee.in = ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self)
        buffers.pointee.in_length = ciphertext.count
        buffers.pointee.in_offset = 0
        defer {
            let left = buffers.pointee.in_length - buffers.pointee.in_offset
            if left > 0 { carried = Array(ciphertext[(ciphertext.count - left)...]) }
            buffers.pointee.in = nil
            buffers.pointee.in_length = 0
            buffers.pointee.in_offset = 0
        }
        return decrypt(plaintext)
    }

    /// The handshake until it completes, then every record the bytes in `buffers` hold.
    private func decrypt(_ plaintext: (UnsafeRawBufferPointer) -> Void) -> Bool {
        if !isHandshakeComplete {
            let result = SSL_do_handshake(ssl)
            if result != 1 {
                let error = SSL_get_error(ssl, result)
                if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return true }
                failure = handshakeFailure()
                return false
            }
            isHandshakeComplete = true
        }
        while true {
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                readBuffer.withUnsafeBytes { plaintext(UnsafeRawBufferPointer(rebasing: $0[0..<Int(count)])) }
                continue
            }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return true }
            if error == SSL_ERROR_ZERO_RETURN {
                failure = "the client closed TLS"
                return false
            }
            failure = "TLS read failed: \(TLSError.queue())"
            return false
        }
    }

    /// Encrypts plaintext for the client; the ciphertext is collected by `drainCiphertext`.
    public func send(_ plaintext: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < plaintext.count {
            let written = SSL_write(ssl, plaintext.baseAddress! + offset, Int32(plaintext.count - offset))
            if written <= 0 {
                failure = "TLS write failed: \(TLSError.queue())"
                return
            }
            offset += Int(written)
        }
    }

    /// Moves the ciphertext waiting for the client (handshake records, encrypted data) into `sink`.
    public func drainCiphertext(into sink: inout [UInt8]) {
        let waiting = buffers.pointee.out_length
        guard waiting > 0, let out = buffers.pointee.out else { return }
        if !isHandshakeComplete { answeredHello = true }
        sink.append(contentsOf: UnsafeBufferPointer(start: out, count: waiting))
        buffers.pointee.out_length = 0
        // A burst (a handshake's certificate chain, a large answer) does not keep its buffer.
        if buffers.pointee.out_capacity > 1 << 16 {
            free(out)
            buffers.pointee.out = nil
            buffers.pointee.out_capacity = 0
        }
    }

    /// The negotiated ALPN protocol, or nil when the client offered none (prior knowledge).
    public var alpn: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The client's certificate, DER-encoded, when it sent one that verified.
    public var peerCertificateDER: [UInt8]? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        var length: Int32 = 0
        guard let der = ringside_X509_to_DER(certificate, &length), length > 0 else { return nil }
        defer { ringside_OPENSSL_free(der) }
        return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }

    /// Says exactly why a handshake failed: the certificate verdict when there is one
    /// ("certificate has expired", "unable to get local issuer certificate"), else OpenSSL's queue.
    private func handshakeFailure() -> String {
        let verify = SSL_get_verify_result(ssl)
        let detail = TLSError.queue()
        if verify != X509_V_OK {
            return "client certificate refused: \(String(cString: X509_verify_cert_error_string(verify)))"
        }
        if detail.contains("no application protocol") {
            return "the client offered ALPN without h2 (refused: APNs speaks HTTP/2 only)"
        }
        if detail.contains("wrong version number") || detail.contains("http request")
            || detail.contains("unknown protocol")
        {
            return "the client did not speak TLS (\(detail))"
        }
        if detail.contains("peer did not return a certificate") {
            return "the client sent no certificate and certificate authentication is required"
        }
        return "TLS handshake failed: \(detail)"
    }
}

/// A TLS failure, with OpenSSL's words.
public struct TLSError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }

    static func queue() -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        ringside_drain_errors(&buffer, buffer.count)
        let text = cText(buffer)
        return text.isEmpty ? "no detail" : text
    }
}

/// OpenSSL's process-wide state.
public enum OpenSSLProcess {
    /// Keeps OpenSSL's global state until the process ends instead of freeing it in an `atexit`
    /// handler: a thread still ending (a pool thread of libcurl's, running OpenSSL's thread-local
    /// cleanup) would free the same memory at the same time. Call first thing in `main`: only the
    /// first initialisation decides.
    public static func keepStateUntilExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
