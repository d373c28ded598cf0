#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One request as APNs sees it: the headers that matter, the body, and which headers were repeated.
///
/// Built from HTTP/2 header fields; nothing is validated here (that is `Validator`'s job), so that a
/// malformed request can still be described, logged and answered with the right reason.
public struct PushRequest: Sendable {
    /// The header fields, in one shared box (`CopyOnWrite`): a connection keeps the request of its
    /// last header block and starts the next request from it (HPACK repeats blocks), and a request
    /// is copied into the transcript's record. The body, new with every request, is kept beside it.
    private struct Fields {
        var method: String?
        var path: String?
        var authorization: String?
        var expiration: String?
        var priority: String?
        var topic: String?
        var pushType: String?
        var collapseId: String?
        var duplicatedHeaders: [String] = []
        var otherHeaders: [(name: String, value: String)] = []
        var deviceToken: String?
    }

    private var fields = CopyOnWrite(Fields())

    public var method: String? {
        get { fields.value.method }
        set { fields.value.method = newValue }
    }
    public var path: String? {
        get { fields.value.path }
        set { fields.value.path = newValue }
    }
    public var authorization: String? {
        get { fields.value.authorization }
        set { fields.value.authorization = newValue }
    }
    /// Beside the box, as the body: a provider sends a new one with each push, and a request that
    /// differs from the one before only in it (`revise`) shares the box.
    public var apnsId: String? { didSet { apnsIdIsCanonical = apnsId.map(UUIDSyntax.isCanonical) ?? false } }
    /// Whether `apnsId` is a canonical UUID, checked once as it is set: the mock names its answer
    /// with it and the validator refuses a request without it, and each checked it again (two
    /// passes over the id a push, callgrind). A flag, not the id: a request is copied several
    /// times a push, and an id beside the string was a retain and a release each time.
    private var apnsIdIsCanonical = false

    /// `apnsId` when it is a canonical UUID; nil otherwise, or without one.
    public var messageId: MessageId? { apnsIdIsCanonical ? MessageId(checked: apnsId!) : nil }
    public var expiration: String? {
        get { fields.value.expiration }
        set { fields.value.expiration = newValue }
    }
    public var priority: String? {
        get { fields.value.priority }
        set { fields.value.priority = newValue }
    }
    public var topic: String? {
        get { fields.value.topic }
        set { fields.value.topic = newValue }
    }
    public var pushType: String? {
        get { fields.value.pushType }
        set { fields.value.pushType = newValue }
    }
    public var collapseId: String? {
        get { fields.value.collapseId }
        set { fields.value.collapseId = newValue }
    }
    /// Names of headers that appeared more than once ([RESP]: `DuplicateHeaders`).
    public var duplicatedHeaders: [String] {
        get { fields.value.duplicatedHeaders }
        set { fields.value.duplicatedHeaders = newValue }
    }
    /// The body, possibly cut short (see `bodyLength`).
    public var body: [UInt8] = []
    /// How many body bytes arrived; larger than `body.count` when the server stopped keeping them.
    public var bodyLength: Int = 0
    /// The headers APNs does not read (content-type, user-agent …), kept for expectations and
    /// transcripts; at most `maximumOtherHeaders`, each cut to `maximumHeaderValue` bytes.
    public var otherHeaders: [(name: String, value: String)] {
        get { fields.value.otherHeaders }
        set { fields.value.otherHeaders = newValue }
    }
    static let maximumOtherHeaders = 32
    static let maximumHeaderValue = 1024

    /// A header's value by name, case-insensitively (HTTP/2 names are lower case, RFC 9113 §8.2.1;
    /// a scenario may write them as it likes). The last one of APNs' own headers when repeated (APNs
    /// refuses the request anyway: `DuplicateHeaders`), and the last one of the others too.
    public func header(named name: String) -> String? {
        switch name.lowercased() {
        case ":method": return method
        case ":path": return path
        case "authorization": return authorization
        case "apns-id": return apnsId
        case "apns-expiration": return expiration
        case "apns-priority": return priority
        case "apns-topic": return topic
        case "apns-push-type": return pushType
        case "apns-collapse-id": return collapseId
        case let other: return otherHeaders.last { $0.name == other }?.value
        }
    }

    private mutating func keepOther(name: String, value: String) {
        guard otherHeaders.count < Self.maximumOtherHeaders else { return }
        otherHeaders.append((name.lowercased(), String(value.utf8.prefix(Self.maximumHeaderValue)) ?? ""))
    }

    public init() {}

    /// Keeps at most `bytes` of the body (`bodyLength` still says how long it was), of each text
    /// field, and of the other headers together: a request as a long-lived record keeps it. Writes
    /// only what it cuts, and says whether it cut anything: most requests are small, and a record
    /// left as it was need not be copied.
    @discardableResult
    public mutating func compact(keeping bytes: Int) -> Bool {
        if largestPart <= bytes { return false }  // most requests: nothing read twice, nothing written
        var cutAny = false
        if body.count > bytes {
            body = Array(body.prefix(bytes))
            cutAny = true
        }
        func cut(_ text: inout String?) {
            if let value = text, value.utf8.count > bytes {
                text = String(decoding: value.utf8.prefix(bytes), as: UTF8.self)
                cutAny = true
            }
        }
        cut(&method)
        cut(&path)
        cut(&authorization)
        cut(&apnsId)
        cut(&expiration)
        cut(&priority)
        cut(&topic)
        cut(&pushType)
        cut(&collapseId)
        var budget = bytes
        let kept = otherHeaders.prefix { header in
            budget -= header.name.utf8.count + header.value.utf8.count
            return budget >= 0
        }.count
        if kept < otherHeaders.count {
            otherHeaders.removeLast(otherHeaders.count - kept)
            cutAny = true
        }
        if duplicatedHeaders.count > 8 {
            duplicatedHeaders.removeLast(duplicatedHeaders.count - 8)
            cutAny = true
        }
        return cutAny
    }

    /// The most bytes `compact(keeping:)` finds in one part (the body, a text field, the other
    /// headers together), or `Int.max` past 8 repeated names: the request fits any larger budget.
    private var largestPart: Int {
        if duplicatedHeaders.count > 8 { return .max }
        var others = 0
        for header in otherHeaders { others += header.name.utf8.count + header.value.utf8.count }
        func size(_ text: String?) -> Int { text?.utf8.count ?? 0 }
        return max(
            body.count, others, size(method), size(path), size(authorization), size(apnsId), size(expiration),
            size(priority), size(topic), size(pushType), size(collapseId))
    }

    /// Records one header field; names are lower case in HTTP/2 (RFC 9113 §8.2.1).
    public mutating func add(name: String, value: String) {
        var repeated = false
        func set(_ slot: inout String?) {
            if slot != nil { repeated = true }
            slot = value
        }
        defer { if repeated { duplicatedHeaders.append(name) } }
        switch name {
        case ":method": set(&method)
        case ":path":
            set(&path)
            deviceToken =
                value.hasPrefix(PushRequest.devicePrefix)
                ? String(value.utf8.dropFirst(PushRequest.devicePrefix.utf8.count))! : nil
        case "authorization": set(&authorization)
        case "apns-id": set(&apnsId)
        case "apns-expiration": set(&expiration)
        case "apns-priority": set(&priority)
        case "apns-topic": set(&topic)
        case "apns-push-type": set(&pushType)
        case "apns-collapse-id": set(&collapseId)
        default: keepOther(name: name, value: value)
        }
    }

    /// Records one header field from raw bytes, making a string only for the headers APNs reads.
    public mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let index = Self.knownIndex(name) else {
            if otherHeaders.count < Self.maximumOtherHeaders {
                // nghttp2 refuses an upper-case name in a request (RFC 9113 §8.2.1): none to lower here.
                otherHeaders.append(
                    (
                        String(decoding: name, as: UTF8.self),
                        String(
                            decoding: UnsafeBufferPointer(rebasing: value.prefix(Self.maximumHeaderValue)),
                            as: UTF8.self)
                    ))
            }
            return
        }
        let text = String(decoding: value, as: UTF8.self)
        var repeated = false
        func set(_ slot: inout String?) {
            if slot != nil { repeated = true }
            slot = text
        }
        defer { if repeated { duplicatedHeaders.append(PushRequest.knownNames[index].description) } }
        switch index {
        case 0: set(&method)
        case 1:
            set(&path)
            deviceToken = Self.token(inPath: text)
        case 2: set(&authorization)
        case 3: set(&apnsId)
        case 4: set(&expiration)
        case 5: set(&priority)
        case 6: set(&topic)
        case 7: set(&pushType)
        default: set(&collapseId)
        }
    }

    /// The fields a request may change from the block before and be checked again by the checks
    /// that read them alone (`Validator.CheckedHeaders.revised(_:)`): a provider's `apns-id`, new
    /// with each push, and the `:path` of a fan-out to many devices.
    public enum RevisableField: Sendable {
        case apnsId
        case path
    }

    /// Sets the `apns-id` or the `:path` of a request built from the block before; nil, and
    /// nothing changed, for any other field, or when some header was repeated (which one counts
    /// is then the block's order, read again in full).
    public mutating func revise(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>
    ) -> RevisableField? {
        guard duplicatedHeaders.isEmpty, let index = Self.knownIndex(name) else { return nil }
        switch index {
        case 1:
            let text = String(decoding: value, as: UTF8.self)
            fields.value.path = text
            fields.value.deviceToken = Self.token(inPath: text)
            return .path
        case 3:
            apnsId = String(decoding: value, as: UTF8.self)
            return .apnsId
        default:
            return nil
        }
    }

    private static let knownNames: [StaticString] = [
        ":method", ":path", "authorization", "apns-id", "apns-expiration", "apns-priority", "apns-topic",
        "apns-push-type", "apns-collapse-id",
    ]

    /// The header's place in `knownNames`: the length picks at most two candidates, one memcmp decides.
    private static func knownIndex(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        let candidates: (Int, Int)
        switch name.count {
        case 5: candidates = (1, 1)
        case 7: candidates = (0, 3)
        case 10: candidates = (6, 6)
        case 13: candidates = (2, 5)
        case 14: candidates = (7, 7)
        case 15: candidates = (4, 4)
        case 16: candidates = (8, 8)
        default: return nil
        }
        if equal(name, knownNames[candidates.0]) { return candidates.0 }
        if candidates.1 != candidates.0, equal(name, knownNames[candidates.1]) { return candidates.1 }
        return nil
    }

    @inline(__always) private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    /// The device token named by the path, if the path has the `/3/device/` shape.
    public private(set) var deviceToken: String? {
        get { fields.value.deviceToken }
        set { fields.value.deviceToken = newValue }
    }

    static let devicePrefix = "/3/device/"

    private static func token(inPath path: String) -> String? {
        path.hasPrefix(devicePrefix) ? String(path.utf8.dropFirst(devicePrefix.utf8.count))! : nil
    }
}
