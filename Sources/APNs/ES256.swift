import COpenSSL

/// A P-256 key for ES256 (RFC 7518 §3.4), as Apple's `.p8` files hold it ([TOKEN]).
///
/// Verification accepts both signature encodings APNs accepts: raw R‖S (64 bytes, the JWS standard,
/// used by node-apn, apns2, aioapns) and DER (pushy and Apple's sample). docs/apns-facts.md §4.1.
/// Unchecked Sendable: `key` is a `let` EVP_PKEY, read-only after init; each sign or verify makes its own
/// EVP_MD_CTX, so OpenSSL allows them from many threads.
public final class ES256Key: @unchecked Sendable {
    // EVP_PKEY is safe for concurrent use once built; each call makes its own EVP_MD_CTX.
    let key: OpaquePointer

    /// Reads a PEM private key (PKCS#8 `.p8`) or public key.
    public init(pem: String) throws(CryptoError) {
        func read<T>(_ reader: (OpaquePointer?) -> T?) -> T? {
            let bio = pem.withCString { BIO_new_mem_buf($0, Int32(strlen($0))) }
            defer { BIO_free(bio) }
            return reader(bio)
        }
        if let key = read({ PEM_read_bio_PrivateKey($0, nil, nil, nil) }) {
            self.key = key
        } else {
            ERR_clear_error()
            guard let key = read({ PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
                throw CryptoError("not a PEM EC key: \(CryptoError.openSSLQueue())")
            }
            self.key = key
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { throw CryptoError("the key is not an EC key") }
    }

    deinit { EVP_PKEY_free(key) }

    /// Signs `message`; returns raw R‖S (64 bytes) unless `der` is asked for.
    public func sign(_ message: [UInt8], der: Bool = false) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw CryptoError("this key cannot sign (a public key?)")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw CryptoError("sign: \(CryptoError.openSSLQueue())")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw CryptoError("sign: \(CryptoError.openSSLQueue())")
        }
        signature.removeSubrange(length...)
        return der ? signature : try ES256Key.rawSignature(fromDER: signature)
    }

    /// Verifies a raw or DER signature over `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        let der: [UInt8]
        if signature.count == 64 {
            guard let converted = ES256Key.derSignature(fromRaw: signature) else { return false }
            der = converted
        } else {
            der = signature
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let result = EVP_DigestVerify(context, der, der.count, message, message.count)
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else { return nil }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            _ = i2d_ECDSA_SIG(sig, &cursor)
        }
        return out
    }

    static func rawSignature(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let sig = parsed else { throw CryptoError("not a DER ECDSA signature") }
        defer { ECDSA_SIG_free(sig) }
        var raw = [UInt8](repeating: 0, count: 64)
        raw.withUnsafeMutableBufferPointer { buffer in
            _ = BN_bn2binpad(ECDSA_SIG_get0_r(sig), buffer.baseAddress, 32)
            _ = BN_bn2binpad(ECDSA_SIG_get0_s(sig), buffer.baseAddress! + 32, 32)
        }
        return raw
    }
}

/// A failure inside OpenSSL, with OpenSSL's own words where it gave any.
public struct CryptoError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// Drains OpenSSL's error queue into one line.
    public static func openSSLQueue() -> String {
        var buffer = [CChar](repeating: 0, count: 1024)
        ringside_drain_errors(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "no detail from OpenSSL" : text
    }
}
