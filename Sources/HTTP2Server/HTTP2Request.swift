#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/2 request as the engine delivers it: header fields in arrival order and the body.
public struct HTTP2Request: Sendable {
    public var streamId: Int32
    /// Header names and values back to back; `fieldSpans` says where each is. One buffer instead
    /// of two strings per field keeps a request to a handful of allocations.
    var fieldBytes: [UInt8] = []
    var fieldSpans: [(name: Range<Int>, value: Range<Int>)] = []
    /// The body, kept up to `HTTP2Limits.maximumKeptBody` bytes.
    public var body: [UInt8] = []
    /// How many body bytes arrived in all, kept or not.
    public var bodyLength = 0
    /// Set when the header list passed `HTTP2Limits.maximumHeaderListSize`; later fields were dropped.
    public var headerListTooLarge = false

    public init(streamId: Int32) { self.streamId = streamId }

    mutating func receiveBody(_ bytes: UnsafeBufferPointer<UInt8>, keeping limit: Int) {
        bodyLength += bytes.count
        let room = limit - body.count
        if room > 0 { body.append(contentsOf: bytes.prefix(room)) }
    }

    mutating func appendField(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let nameStart = fieldBytes.count
        fieldBytes.append(contentsOf: name)
        let valueStart = fieldBytes.count
        fieldBytes.append(contentsOf: value)
        fieldSpans.append((nameStart..<valueStart, valueStart..<fieldBytes.count))
    }

    var fieldCount: Int { fieldSpans.count }

    /// The request's header fields alone (what the next request's block is compared with).
    public var withoutBody: HTTP2Request {
        var fields = HTTP2Request(streamId: streamId)
        fields.fieldBytes = fieldBytes
        fields.fieldSpans = fieldSpans
        return fields
    }

    /// Whether field `index` exists and is `name: value`, byte for byte.
    func field(_ index: Int, is name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard index < fieldSpans.count else { return false }
        let span = fieldSpans[index]
        guard span.name.count == name.count, span.value.count == value.count else { return false }
        return fieldBytes.withUnsafeBufferPointer { bytes in
            (name.isEmpty || memcmp(bytes.baseAddress! + span.name.lowerBound, name.baseAddress!, name.count) == 0)
                && (value.isEmpty
                    || memcmp(bytes.baseAddress! + span.value.lowerBound, value.baseAddress!, value.count) == 0)
        }
    }

    /// Whether field `index` exists, is named `name` and has a value of `valueCount` bytes: a value
    /// that can be written over it in place (`overwrite`).
    func field(_ index: Int, is name: UnsafeBufferPointer<UInt8>, withValueOf valueCount: Int) -> Bool {
        guard index < fieldSpans.count else { return false }
        let span = fieldSpans[index]
        guard span.name.count == name.count, span.value.count == valueCount else { return false }
        return name.isEmpty
            || fieldBytes.withUnsafeBufferPointer {
                memcmp($0.baseAddress! + span.name.lowerBound, name.baseAddress!, name.count) == 0
            }
    }

    /// Writes `value` over field `index`'s value, which has its length.
    mutating func overwrite(valueOf index: Int, with value: UnsafeBufferPointer<UInt8>) {
        let span = fieldSpans[index].value
        precondition(span.count == value.count)
        guard !value.isEmpty else { return }
        fieldBytes.withUnsafeMutableBufferPointer { bytes in
            (bytes.baseAddress! + span.lowerBound).update(from: value.baseAddress!, count: value.count)
        }
    }

    /// Only the first `count` fields are kept.
    mutating func keepFields(_ count: Int) {
        guard count < fieldSpans.count else { return }
        fieldBytes.removeSubrange((count > 0 ? fieldSpans[count - 1].value.upperBound : 0)...)
        fieldSpans.removeSubrange(count...)
    }

    mutating func copyFields(of other: HTTP2Request, count: Int) {
        guard count > 0 else { return }
        let end = other.fieldSpans[count - 1].value.upperBound
        fieldBytes.append(contentsOf: other.fieldBytes[..<end])
        fieldSpans.append(contentsOf: other.fieldSpans[..<count])
    }

    /// Every field of `other`, sharing its storage (a repeated block costs no copy).
    mutating func shareFields(of other: HTTP2Request) {
        fieldBytes = other.fieldBytes
        fieldSpans = other.fieldSpans
    }

    /// Whether `other` has the same header fields, byte for byte (names, values and their order).
    /// HPACK lets a client send the same block push after push; a connection parses it once.
    public func hasSameFields(as other: HTTP2Request) -> Bool {
        guard fieldBytes.count == other.fieldBytes.count, fieldSpans.count == other.fieldSpans.count else {
            return false
        }
        for (mine, theirs) in zip(fieldSpans, other.fieldSpans)
        where mine.name != theirs.name || mine.value != theirs.value {
            return false
        }
        return fieldBytes.withUnsafeBytes { mine in
            other.fieldBytes.withUnsafeBytes { theirs in
                mine.count == 0 || mine.baseAddress == theirs.baseAddress
                    || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0
            }
        }
    }

    /// The fields of `other` whose values differ from this request's, as bits by position, when
    /// both have the same names in the same order (nil otherwise, or past 64 fields). A provider
    /// that numbers its pushes sends a new `apns-id` with each, and one that fans out a new `:path`:
    /// the rest of the block is the one before, and a connection need not read it again.
    public func valuesChanged(in other: HTTP2Request) -> UInt64? {
        guard fieldSpans.count == other.fieldSpans.count, fieldSpans.count <= 64 else { return nil }
        return fieldBytes.withUnsafeBufferPointer { mine in
            other.fieldBytes.withUnsafeBufferPointer { theirs -> UInt64? in
                func same(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
                    a.count == b.count
                        && (a.isEmpty
                            || memcmp(mine.baseAddress! + a.lowerBound, theirs.baseAddress! + b.lowerBound, a.count)
                                == 0)
                }
                var changed: UInt64 = 0
                for index in 0..<fieldSpans.count {
                    let (a, b) = (fieldSpans[index], other.fieldSpans[index])
                    // A name and its value lie side by side: one comparison when the field is the same.
                    if a.value.count == b.value.count,
                        same(a.name.lowerBound..<a.value.upperBound, b.name.lowerBound..<b.value.upperBound)
                    {
                        continue
                    }
                    guard same(a.name, b.name) else { return nil }
                    changed |= 1 << UInt64(index)
                }
                return changed
            }
        }
    }

    /// Field `index`'s name and value as received (not generic: a generic method of another
    /// module runs unspecialized).
    public func withField(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        let span = fieldSpans[index]
        fieldBytes.withUnsafeBufferPointer { bytes in
            body(UnsafeBufferPointer(rebasing: bytes[span.name]), UnsafeBufferPointer(rebasing: bytes[span.value]))
        }
    }

    /// Calls `body` with each header field as received (pseudo-headers first, RFC 9113 §8.3;
    /// names in lower case), without making strings.
    public func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        fieldBytes.withUnsafeBufferPointer { bytes in
            for span in fieldSpans {
                body(UnsafeBufferPointer(rebasing: bytes[span.name]), UnsafeBufferPointer(rebasing: bytes[span.value]))
            }
        }
    }

    /// The header fields as strings, in order.
    public var headers: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        forEachField { fields.append((String(decoding: $0, as: UTF8.self), String(decoding: $1, as: UTF8.self))) }
        return fields
    }
}

/// A response to one stream: status, header fields, and an optional body.
public struct HTTP2Response: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Header fields whose value is new in every response (ids), after `headers`.
    public var unique: UniqueFields

    public init(
        status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        unique: UniqueFields = UniqueFields()
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.unique = unique
    }
}

/// A header field whose value is new in every response (an id). The value lies in the field itself,
/// so that an answer needs no string or array on the heap (callgrind: three allocations a push,
/// freed long after in the transcript); it is sent as a literal never indexed (RFC 7541 §6.2.3), so
/// that it does not churn the HPACK dynamic table.
public struct UniqueField: Sendable {
    public let name: StaticString
    private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
    /// How many bytes of the value are set, at most `capacity`.
    public let count: Int
    public static let capacity = 40

    /// `write` sets the value's `count` bytes (`count` is cut to `capacity`).
    public init(name: StaticString, count: Int, _ write: (UnsafeMutableRawBufferPointer) -> Void) {
        self.name = name
        self.count = min(max(count, 0), Self.capacity)
        let count = self.count
        withUnsafeMutableBytes(of: &storage) { write(UnsafeMutableRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// The value's bytes, for as long as `body` runs.
    public func withValue<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: storage) { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    public var value: String { withValue { String(decoding: $0, as: UTF8.self) } }

    /// Writes the name's bytes, then the value's, at `target`.
    func copy(to target: UnsafeMutablePointer<UInt8>) {
        let nameCount = name.utf8CodeUnitCount
        name.withUTF8Buffer { target.update(from: $0.baseAddress!, count: nameCount) }
        withUnsafeBytes(of: storage) {
            UnsafeMutableRawPointer(target + nameCount).copyMemory(from: $0.baseAddress!, byteCount: count)
        }
    }
}

/// At most two unique fields (`apns-id`, `apns-unique-id`), kept inline.
public struct UniqueFields: Sendable {
    public let first: UniqueField?
    public let second: UniqueField?

    public init(_ first: UniqueField? = nil, _ second: UniqueField? = nil) {
        self.first = first ?? second
        self.second = first == nil ? nil : second
    }

    public var count: Int { first == nil ? 0 : (second == nil ? 1 : 2) }

    /// Names' and values' bytes together.
    var byteCount: Int {
        (first.map { $0.name.utf8CodeUnitCount + $0.count } ?? 0)
            + (second.map { $0.name.utf8CodeUnitCount + $0.count } ?? 0)
    }
}

/// The SETTINGS and limits a server connection uses.
public struct HTTP2Limits: Sendable {
    /// SETTINGS APNs advertises (docs/apns-facts.md §6.1, observed 2021).
    public var headerTableSize: UInt32 = 4096
    /// The streams a client may open at once once the service allows more than one: the mock
    /// starts a token connection at one and raises it to this at the first valid JWT
    /// (`MockConfiguration.authenticatedMaxConcurrentStreams`, set from it by `MockAssembly`).
    public var maxConcurrentStreams: UInt32 = 1000
    public var initialWindowSize: UInt32 = 65535
    public var maxFrameSize: UInt32 = 16384
    public var maxHeaderListSize: UInt32 = 8000
    /// How many body bytes of one request are kept; the rest is counted and dropped, so an 8 MB body
    /// costs no memory. 5121 is enough to judge APNs' largest limit (5120, VoIP).
    public var maximumKeptBody = 8192
    /// Header and body bytes a connection may hold for requests still arriving (their END_STREAM not
    /// yet in): past it, the stream that would add more is refused with REFUSED_STREAM, unprocessed.
    /// Without it, 1,000 open streams each holding 8 KB of headers and a body cost 16 MB a connection.
    public var maximumHeldPerConnection = 1 << 20
    /// Stop reading from a client while this many bytes wait to be written to it (back-pressure).
    public var maximumPendingOutput = 1 << 20
    /// RST_STREAMs a client may send: a burst, refilled at a rate per second; past it, GOAWAY
    /// INTERNAL_ERROR. nil: no limit. nghttp2's protection against rapid reset (CVE-2023-44487) is on
    /// by default at 1,000 and 33 a second and counts resets of finished streams too, which
    /// libcurl 7.88 sends for every stream; Apple documents no such limit for APNs, so the mock has none
    /// unless asked (`serve --reset-limit 1000/33`).
    public var streamResets: (burst: UInt64, perSecond: UInt64)?

    public init() {}
}
