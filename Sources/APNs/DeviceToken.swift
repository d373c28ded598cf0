/// Device-token syntax: hexadecimal, an even number of digits, any length ([SEND]: "don't assume a
/// token size"; tokens of 64, 108 and 160 digits are reported, docs/apns-facts.md §1.3).
public enum DeviceTokenSyntax {
    /// The longest token accepted, in hex digits; far above any reported size, it only bounds memory.
    public static let maximumLength = 1024

    public static func isWellFormed(_ token: String) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count % 2 == 0, bytes.count <= maximumLength else { return false }
            for byte in bytes where !isHexDigit(byte) { return false }
            return true
        }
    }

    @inline(__always) static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte &- 48) < 10 || ((byte | 0x20) &- 97) < 6
    }

    /// A short form for logs: the first and last six digits.
    public static func abbreviated(_ token: String) -> String {
        token.count <= 14 ? token : "\(token.prefix(6))…\(token.suffix(6))"
    }
}

/// What the device directory (the world, once it exists) says of a token on a topic.
public enum DeviceLookup: Sendable, Equatable {
    /// Registered for the topic in this environment.
    case active
    /// Registered, but for another topic or token kind.
    case notForTopic
    /// Not a token of this environment (unknown, or the other environment's).
    case unknown
    /// No longer active since this time, in milliseconds since 1970 ([RESP]: 410 `timestamp`).
    case unregistered(sinceMilliseconds: Int64)
    /// The token expired ([RESP] `ExpiredToken`).
    case expired
    /// The token belongs to the topic's app but not to this push type: the PushKit token with the bare
    /// bundle id (O: node-apn #658).
    case topicDisallowed
    /// Too many requests to this token lately ([RESP] `TooManyRequests`).
    case throttled
    /// 429 from the folklore rule dead-token-penalty (tag F): the app's team pushed too many dead tokens.
    case penalized
    /// The simulated world follows `World.maximumPending` pushes already (a limit of Ringside's
    /// simulation, not Apple's): answered 503, as APNs answers when it cannot take more.
    case full
}

/// Answers whether a device token is live; the world model implements it, the mock asks it.
public protocol DeviceDirectory: Sendable {
    func lookup(token: String, topic: String, environment: APNsEnvironment, now: Double) -> DeviceLookup
}

/// The directory used until a world exists: every well-formed token is a registered device.
public struct EveryTokenRegistered: DeviceDirectory {
    public init() {}
    public func lookup(token: String, topic: String, environment: APNsEnvironment, now: Double) -> DeviceLookup {
        .active
    }
}
