import COpenSSL

/// What an APNs client certificate says: its bundle id, topics and environments ([CERT], docs/apns-facts.md §5).
public struct ClientCertificate: Sendable, Equatable {
    /// The subject's UID: the app's bundle id and the default topic.
    public var uid: String?
    public var commonName: String?
    /// Topics from extension 1.2.840.113635.100.6.3.6, or just the UID where the extension is absent.
    public var topics: [String]
    /// From 1.2.840.113635.100.6.3.1 (sandbox) and .2 (production).
    public var environments: Set<APNsEnvironment>
    /// notAfter, seconds since 1970.
    public var notAfter: Double?

    static let sandboxOID = "1.2.840.113635.100.6.3.1"
    static let productionOID = "1.2.840.113635.100.6.3.2"
    static let topicsOID = "1.2.840.113635.100.6.3.6"

    public init(
        uid: String?, commonName: String? = nil, topics: [String], environments: Set<APNsEnvironment>,
        notAfter: Double? = nil
    ) {
        self.uid = uid
        self.commonName = commonName
        self.topics = topics
        self.environments = environments
        self.notAfter = notAfter
    }

    /// Parses a DER certificate with OpenSSL's X.509 parser.
    public init(der: [UInt8]) throws(CryptoError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let certificate = parsed else { throw CryptoError("not a DER X.509 certificate") }
        defer { X509_free(certificate) }
        let subject = X509_get_subject_name(certificate)
        uid = Self.entry(subject, nid: NID_userId)
        commonName = Self.entry(subject, nid: NID_commonName)
        environments = []
        if Self.extensionValue(certificate, oid: Self.sandboxOID) != nil { environments.insert(.sandbox) }
        if Self.extensionValue(certificate, oid: Self.productionOID) != nil { environments.insert(.production) }
        if let value = Self.extensionValue(certificate, oid: Self.topicsOID) {
            topics = Self.topics(fromExtension: value)
        } else {
            topics = uid.map { [$0] } ?? []
        }
        var seconds: Int64 = 0
        if let time = X509_get0_notAfter(certificate), Self.epochSeconds(time, into: &seconds) {
            notAfter = Double(seconds)
        }
    }

    /// Reads a PEM certificate (for tests and the command line).
    public init(pem: String) throws(CryptoError) {
        let bio = pem.withCString { BIO_new_mem_buf($0, Int32(strlen($0))) }
        defer { BIO_free(bio) }
        guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
            throw CryptoError("not a PEM certificate")
        }
        defer { X509_free(certificate) }
        var length: Int32 = 0
        guard let der = ringside_X509_to_DER(certificate, &length), length > 0 else {
            throw CryptoError("cannot encode the certificate")
        }
        defer { ringside_OPENSSL_free(der) }
        try self.init(der: Array(UnsafeBufferPointer(start: der, count: Int(length))))
    }

    /// The extension's layout as pushy's test certificates reconstruct it (undocumented by Apple):
    /// `SEQUENCE { UTF8String topic, SEQUENCE { UTF8String type }, … }`. Topics are the UTF8Strings
    /// directly inside the outer SEQUENCE, as pushy's historical `TopicUtil` read them.
    static func topics(fromExtension der: [UInt8]) -> [String] {
        var reader = DERReader(der)
        guard let outer = reader.next(), outer.tag == 0x30 else { return [] }
        var inner = DERReader(outer.content)
        var topics: [String] = []
        while let element = inner.next() {
            if element.tag == 0x0C { topics.append(String(decoding: element.content, as: UTF8.self)) }
        }
        return topics
    }

    private static func entry(_ name: OpaquePointer?, nid: Int32) -> String? {
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else { return nil }
        defer { CRYPTO_free(utf8, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    private static func extensionValue(_ certificate: OpaquePointer, oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(certificate, object, -1)
        guard index >= 0, let ext = X509_get_ext(certificate, index), let data = ringside_X509_EXTENSION_data(ext)
        else { return nil }
        let length = Int(ASN1_STRING_length(data))
        guard let bytes = ASN1_STRING_get0_data(data) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    private static func epochSeconds(_ time: UnsafePointer<ASN1_TIME>, into seconds: inout Int64) -> Bool {
        var tm = tm()
        guard ASN1_TIME_to_tm(time, &tm) == 1 else { return false }
        seconds = Int64(timegm(&tm))
        return true
    }
}

/// Just enough DER (X.690) to walk the topics extension: tag, definite length, content.
struct DERReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> (tag: UInt8, content: [UInt8])? {
        guard offset + 2 <= bytes.count else { return nil }
        let tag = bytes[offset]
        var length = Int(bytes[offset + 1])
        offset += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count > 0, count <= 4, offset + count <= bytes.count else { return nil }
            length = bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
            offset += count
        }
        guard offset + length <= bytes.count else { return nil }
        defer { offset += length }
        return (tag, Array(bytes[offset..<offset + length]))
    }
}
