/// The values of `apns-push-type` and the topic suffix each requires (APNS-REFERENCE §2.2, from [SEND]).
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
        // Judge by the last dot-separated component first: one scan instead of a hasSuffix per type.
        guard let dot = topic.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let last = topic.utf8[topic.utf8.index(after: dot)...]
        let candidate: PushType
        switch String(Substring(last)) {
        case "voip": candidate = .voip
        case "voip-ptt": candidate = .pushtotalk
        case "complication": candidate = .complication
        case "location-query": candidate = .location
        case "fileprovider": candidate = .fileprovider
        case "liveactivity": candidate = .liveactivity
        case "widgets": candidate = .widgets
        case "controls": candidate = .controls
        default: return nil
        }
        return topic.hasSuffix(candidate.topicSuffix!) ? candidate : nil
    }

    /// The bundle id a topic belongs to: the topic less its push-type suffix.
    public static func bundleId(ofTopic topic: String) -> String {
        for suffix in knownSuffixes where topic.hasSuffix(suffix) {
            return String(topic.dropLast(suffix.count))
        }
        return topic
    }

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
