#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The values of `apns-push-type` and the topic suffix each requires ([SEND]; docs/apns-facts.md §2.2).
public enum PushType: String, CaseIterable, Sendable {
    case alert, background, voip, complication, fileprovider, location, liveactivity, mdm, pushtotalk, widgets,
        controls

    /// What the topic must end with for this push type; `nil` where the topic is the bare bundle id
    /// (or, for `mdm`, the certificate's UID).
    public var topicSuffix: String? {
        switch self {
        case .alert, .background, .mdm: return nil
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .location: return ".location-query"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        }
    }

    /// Every suffix some push type uses, longest first, to split a topic into bundle id and suffix.
    public static let knownSuffixes: [String] = PushType.allCases.compactMap(\.topicSuffix)
        .sorted { $0.count > $1.count }

    /// The push type whose suffix a topic carries, or nil for a bare bundle id.
    public static func implied(byTopic topic: String) -> PushType? {
        // `.voip-ptt` and `.voip` are distinct suffixes, so at most one type matches.
        suffixed.first { topic.hasByteSuffix($0.suffix) }?.type
    }

    /// VoIP first: the common case answers after one comparison.
    private static let suffixed: [(type: PushType, suffix: String)] =
        [(PushType.voip, ".voip")]
        + PushType.allCases.filter { $0 != .voip }.compactMap { type in type.topicSuffix.map { (type, $0) } }

    /// The bundle id a topic belongs to: the topic less its push-type suffix.
    public static func bundleId(ofTopic topic: String) -> String {
        let length = topic.withBytes(bundleIdLength(ofTopic:))
        return length == topic.utf8.count ? topic : String(decoding: topic.utf8.prefix(length), as: UTF8.self)
    }

    /// What the device check reads of a topic: how long its bundle id is, and whether it ends in
    /// `.voip`. An accepted push works it out once (`AcceptedPush.topicShape`), before the world's
    /// lock is taken, where every other push waits.
    public struct TopicShape: Sendable, Equatable {
        public let bundleIdLength: Int
        public let isVoIP: Bool

        public init(of topic: String) {
            (bundleIdLength, isVoIP) = topic.withBytes {
                (PushType.bundleIdLength(ofTopic: $0), $0.hasSuffix(voipSuffix))
            }
        }
    }

    /// `isTopic(_:of:)` with the topic's shape worked out already: one length and one memcmp.
    public static func isTopic(_ topic: String, shape: TopicShape, of bundleId: String) -> Bool {
        bundleId.utf8.count == shape.bundleIdLength
            && topic.withBytes { topic in
                bundleId.withBytes { bundle in
                    bundle.isEmpty || memcmp(topic.baseAddress!, bundle.baseAddress!, bundle.count) == 0
                }
            }
    }

    /// Whether `topic` is `bundleId` or `bundleId` with a push-type suffix: `bundleId(ofTopic:)`
    /// without a new string, over borrowed bytes (the generic `starts(with:)` over two UTF-8 views
    /// cost the world about 1,300 instructions a push).
    public static func isTopic(_ topic: String, of bundleId: String) -> Bool {
        isTopic(topic, shape: TopicShape(of: topic), of: bundleId)
    }

    /// The topic's length in bytes less its suffix (suffixes are ASCII and begin with a dot, so the
    /// rest stays whole UTF-8).
    private static func bundleIdLength(ofTopic topic: UnsafeBufferPointer<UInt8>) -> Int {
        // VoIP first, the common case: no other known suffix ends with `.voip`, so it is the longest
        // that matches.
        if topic.hasSuffix(voipSuffix) { return topic.count - voipSuffix.count }
        for suffix in knownSuffixBytes where topic.hasSuffix(suffix) { return topic.count - suffix.count }
        return topic.count
    }

    private static let voipSuffix = Array(".voip".utf8)

    /// `knownSuffixes` as bytes, in the same order.
    private static let knownSuffixBytes: [[UInt8]] = knownSuffixes.map { Array($0.utf8) }

    /// The payload limit in bytes: 5120 for VoIP, 4096 for everything else ([SEND], [PAYLOAD]).
    public var payloadLimit: Int { self == .voip ? 5120 : 4096 }
}

/// The values of `apns-priority` ([SEND]): 10 send now, 5 mind the power, 1 power first.
public enum Priority: Int, Sendable {
    case immediate = 10
    case considerPower = 5
    case powerFirst = 1
}

/// The two APNs environments; each has its own device-token space ([RESP], BadDeviceToken).
public enum APNsEnvironment: String, CaseIterable, Sendable, Codable {
    case sandbox, production

    public var host: String {
        switch self {
        case .sandbox: return "api.sandbox.push.apple.com"
        case .production: return "api.push.apple.com"
        }
    }
}

extension String {
    /// The UTF-8 bytes, borrowed where they are (a native string's storage, a small one's copy on
    /// the stack); copied only for a string that is not contiguous UTF-8 (bridged).
    @inline(__always)
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(utf8).withUnsafeBufferPointer(body)
    }

    /// A byte-wise suffix test. Topics are ASCII; `hasSuffix` compares Unicode characters and
    /// costs many times more on the hot path.
    public func hasByteSuffix(_ suffix: String) -> Bool {
        withBytes { bytes in suffix.withBytes { bytes.hasSuffix($0) } }
    }

    /// Whether every byte satisfies `predicate`, over contiguous UTF-8.
    public func allBytes(_ predicate: (UInt8) -> Bool) -> Bool {
        withBytes { bytes in
            for byte in bytes where !predicate(byte) { return false }
            return true
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes end with `suffix`'s.
    @inline(__always)
    func hasSuffix(_ suffix: UnsafeBufferPointer<UInt8>) -> Bool {
        count >= suffix.count
            && (suffix.isEmpty || memcmp(baseAddress! + count - suffix.count, suffix.baseAddress!, suffix.count) == 0)
    }

    /// Whether these bytes end with `suffix`.
    @inline(__always)
    func hasSuffix(_ suffix: [UInt8]) -> Bool { suffix.withUnsafeBufferPointer { hasSuffix($0) } }
}
