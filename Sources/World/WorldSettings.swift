import APNs

/// The numbers of the world. Apple documents few of them; each says where it comes from, and the
/// folklore rules are off unless a scenario turns them on (tag F in docs/apns-facts.md).
public struct WorldSettings: Sendable, Codable, Equatable {
    /// Bytes per issued device token (hex digits are twice this); 32 historically ([SEND]: don't assume).
    public var tokenBytes = 32
    /// Hex digits every token this world issues starts with (`serve --token-prefix`): one mock of
    /// several owns a share of the phones, and a proxy routes `/3/device/<prefix>…` to it
    /// (docs/scaling.md). Nil: tokens start anywhere.
    public var tokenPrefix: String?
    /// Where the app reads the call in its payload (a provider file's `call-id-at`, `caller-at`).
    public var callPaths: CallPaths?
    /// Seconds from an accepted push to an online phone.
    public var deliveryLatency: Double = 0.05
    /// Extra delay for priority 5 and 1 pushes ([SEND]: may be grouped and delayed).
    public var lowPriorityDelay: Double = 0
    /// How long APNs stores a push for an offline phone without `apns-expiration` ([METRICS]: 30 days).
    public var defaultStorage: Double = 30 * 24 * 3600
    /// Which stored push survives when several arrive for one app ([SEND]: usually the latest).
    public var keepStored: StoragePolicy = .latest
    /// After a reinstall or rotation the old token answers 200 this long (delivering nothing), then 410
    /// (A-DTS thread 795542: "after some undefined delay").
    public var unregisterDelay: Double = 0
    /// The system's second check after delivery ([PK-VOIP], A-DTS thread 817976: about 7 s).
    public var callServicesCheck: Double = 7
    /// Unreported VoIP pushes after which the system stops delivering them to the app until reinstall.
    /// Apple documents no number (docs/apns-facts.md §8.3).
    public var unreportedLimit = 3
    /// A push that rings more than this after its call was placed (`World.callPlaced`; else after the
    /// push was sent) rings for a call that is over.
    public var ringTimeout: Double = 30
    /// On iOS 26.4, a push delayed this long by the network gets `mustReport = false` ([PK-META]).
    public var longNetworkDelay: Double = 30
    /// 429 TooManyRequests per device token: at most `count` requests in `window` seconds.
    /// Apple publishes no numbers ([RESP], docs/apns-facts.md §6.4).
    public var throttle: Throttle? = Throttle(count: 50, window: 60)
    /// Opt-in rules practitioners report and Apple does not document (tag F).
    public var folklore = Folklore()
    /// Apple says a VoIP push at priority 5 or 1, or without `apns-push-type`, *may* be delayed or
    /// dropped ([SEND]); by default the phone misses it. True: it is delivered like a correct one.
    public var wrongPushesDelivered = false

    public init() {}

    /// The longest duration a setting may hold: ten years, beyond every rule of APNs or the phone and
    /// small enough that world-time arithmetic stays exact (the scenario language's limit too).
    public static let longestDuration = 10 * 365 * 86_400.0
    /// Token sizes APNs hands out: 32 bytes today, longer ones seen; `DeviceTokenSyntax` reads up to 512.
    public static let tokenSizes = 1...512
    /// Counts (limits, budgets, throttles) a setting may hold.
    public static let counts = 0...1_000_000

    /// 1 to 8 lowercase hex digits, fewer than a token of `bytes` bytes has.
    public static func isTokenPrefix(_ text: String, bytes: Int) -> Bool {
        (1...8).contains(text.utf8.count) && text.utf8.count < 2 * bytes
            && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// What is out of range, in words, or nil: settings from outside (the control API, a world file)
    /// are checked before a world is made with them.
    public var problem: String? {
        let durations: [(String, Double?)] = [
            ("deliveryLatency", deliveryLatency), ("lowPriorityDelay", lowPriorityDelay),
            ("defaultStorage", defaultStorage), ("unregisterDelay", unregisterDelay),
            ("callServicesCheck", callServicesCheck), ("ringTimeout", ringTimeout),
            ("longNetworkDelay", longNetworkDelay), ("throttle.window", throttle?.window),
            ("folklore.deadTokenPenaltySeconds", folklore.deadTokenPenaltySeconds),
        ]
        for case let (name, value?) in durations where !(value.isFinite && (0...Self.longestDuration).contains(value)) {
            return "<\(name)> takes seconds from 0 to \(Int(Self.longestDuration)) (ten years), got <\(value)>"
        }
        let counts: [(String, Int?)] = [
            ("unreportedLimit", unreportedLimit), ("throttle.count", throttle?.count),
            ("folklore.deadTokenPenalty", folklore.deadTokenPenalty),
            ("folklore.dailyVoIPBudget", folklore.dailyVoIPBudget),
        ]
        for case let (name, value?) in counts where !Self.counts.contains(value) {
            return "<\(name)> takes a whole number from 0 to \(Self.counts.upperBound), got <\(value)>"
        }
        if !Self.tokenSizes.contains(tokenBytes) {
            return "<tokenBytes> takes a size from 1 to 512 bytes, got <\(tokenBytes)>"
        }
        if let prefix = tokenPrefix, !Self.isTokenPrefix(prefix, bytes: tokenBytes) {
            return
                "<tokenPrefix> takes 1 to 8 hex digits (0-9, a-f), fewer than a token has, got <\(prefix.prefix(64))>"
        }
        return nil
    }

    public enum StoragePolicy: String, Sendable, Codable, CaseIterable { case latest, oldest }

    public struct Throttle: Sendable, Codable, Equatable {
        public var count: Int
        public var window: Double
        public init(count: Int, window: Double) {
            self.count = count
            self.window = window
        }
    }

    /// Folklore (F): every outcome that used one says so.
    public struct Folklore: Sendable, Codable, Equatable {
        /// After this many pushes to dead tokens, a team's pushes get 429 for `deadTokenPenaltySeconds`.
        public var deadTokenPenalty: Int?
        public var deadTokenPenaltySeconds: Double = 3600
        /// VoIP pushes delivered per app per day; later ones are dropped on the phone.
        public var dailyVoIPBudget: Int?
        /// A force-quit app gets no VoIP push until relaunched (evidence says it does: F).
        public var forceQuitBlocksVoIP = false
        public init() {}

        /// The rules by name, as scenarios turn them on (`apns: folklore: [...]`).
        public enum Rule: String, Sendable, CaseIterable {
            case deadTokenPenalty = "dead-token-penalty"
            case dailyVoIPBudget = "daily-voip-budget"
            case forceQuitBlocksVoIP = "force-quit-blocks-voip"
        }

        /// Turns a rule on with its usual numbers.
        public mutating func enable(_ rule: Rule) {
            switch rule {
            case .deadTokenPenalty: deadTokenPenalty = 3
            case .dailyVoIPBudget: dailyVoIPBudget = 10
            case .forceQuitBlocksVoIP: forceQuitBlocksVoIP = true
            }
        }
    }
}
