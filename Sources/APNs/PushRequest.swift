/// One request as APNs sees it: the headers that matter, the body, and which headers were repeated.
///
/// Built from HTTP/2 header fields; nothing is validated here (that is `Validator`'s job), so that a
/// malformed request can still be described, logged and answered with the right reason.
public struct PushRequest: Sendable {
    public var method: String?
    public var path: String?
    public var authorization: String?
    public var apnsId: String?
    public var expiration: String?
    public var priority: String?
    public var topic: String?
    public var pushType: String?
    public var collapseId: String?
    /// Names of headers that appeared more than once ([RESP]: `DuplicateHeaders`).
    public var duplicatedHeaders: [String] = []
    /// The body, possibly cut short (see `bodyLength`).
    public var body: [UInt8] = []
    /// How many body bytes arrived; larger than `body.count` when the server stopped keeping them.
    public var bodyLength: Int = 0

    public init() {}

    /// Records one header field; names are lower case in HTTP/2 (RFC 9113 §8.2.1).
    public mutating func add(name: String, value: String) {
        func set(_ slot: inout String?) {
            if slot != nil { duplicatedHeaders.append(name) }
            slot = value
        }
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
        default: break
        }
    }

    /// The device token named by the path, if the path has the `/3/device/` shape.
    public private(set) var deviceToken: String?

    static let devicePrefix = "/3/device/"
}
