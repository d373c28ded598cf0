import APNs

/// What an app does when PushKit hands it a VoIP push ([PK-VOIP], docs/apns-facts.md §8.3): the named
/// profiles of the issue, each a habit seen in real apps.
public enum AppBehaviour: Sendable, Equatable, Codable {
    /// Reports the call to CallKit before the delegate returns: correct.
    case reportsAtOnce
    /// Waits for a network round trip of `seconds` before reporting. With `blocking`, the delegate
    /// waits too (killed by the ~7 s system check if too slow); without, it returns first (killed at once).
    case reportsAfterRoundTrip(seconds: Double, blocking: Bool)
    /// Never reports (used VoIP pushes for "call cancelled" or "missed call" events).
    case neverReports
    /// Calls the PushKit completion handler first, then reports: the handler plays no role (A-DTS 817976).
    case completesBeforeReporting
    /// Reports only payloads carrying a call id and a caller; ignores the others.
    case reportsOnlyWellFormed

    /// The behaviours' names, used by the control API and scenario files.
    public enum Name: String, Sendable, CaseIterable {
        case reportsAtOnce = "reports-at-once"
        case reportsAfterRoundTrip = "reports-after-round-trip"
        case neverReports = "never-reports"
        case completesBeforeReporting = "completes-before-reporting"
        case reportsOnlyWellFormed = "reports-only-well-formed"

        /// Whether the behaviour waits for a network round trip (and so takes its seconds and blocking).
        public var hasRoundTrip: Bool { self == .reportsAfterRoundTrip }
    }

    public init(_ name: Name, seconds: Double = 2, blocking: Bool = false) {
        switch name {
        case .reportsAtOnce: self = .reportsAtOnce
        case .reportsAfterRoundTrip: self = .reportsAfterRoundTrip(seconds: seconds, blocking: blocking)
        case .neverReports: self = .neverReports
        case .completesBeforeReporting: self = .completesBeforeReporting
        case .reportsOnlyWellFormed: self = .reportsOnlyWellFormed
        }
    }

    public static func named(_ name: String, seconds: Double = 2, blocking: Bool = false) -> AppBehaviour? {
        Name(rawValue: name).map { AppBehaviour($0, seconds: seconds, blocking: blocking) }
    }

    public static let names = Name.allCases.map(\.rawValue)

    public var name: String {
        switch self {
        case .reportsAtOnce: return Name.reportsAtOnce.rawValue
        case .reportsAfterRoundTrip: return Name.reportsAfterRoundTrip.rawValue
        case .neverReports: return Name.neverReports.rawValue
        case .completesBeforeReporting: return Name.completesBeforeReporting.rawValue
        case .reportsOnlyWellFormed: return Name.reportsOnlyWellFormed.rawValue
        }
    }
}

/// An iOS version, compared as (major, minor).
public struct OSVersion: Sendable, Equatable, Comparable, Codable, CustomStringConvertible {
    // Small: every push's story keeps one.
    public var major: UInt8
    public var minor: UInt8

    public init(_ major: Int, _ minor: Int = 0) {
        self.major = UInt8(clamping: major)
        self.minor = UInt8(clamping: minor)
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ".").compactMap { Int($0) }
        guard let major = parts.first else { return nil }
        self.init(major, parts.count > 1 ? parts[1] : 0)
    }

    public static func < (a: OSVersion, b: OSVersion) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
    public var description: String { "\(major).\(minor)" }

    /// iOS 13: an unreported VoIP push terminates the app ([PK-TYPE]).
    public static let reportingRule = OSVersion(13)
    /// iOS 26.4: the delegate with `PKVoIPPushMetadata.mustReport` ([PK-264]).
    public static let mustReportDelegate = OSVersion(26, 4)
}

/// An app installed on a virtual phone. A million phones hold one each: the fields are ordered so
/// that the small ones fill the tokens' tail padding (a field follows the previous one's size, not its
/// stride), 192 bytes down to 160 (`WorldBench` STRIDES=1).
public struct VirtualApp: Sendable {
    public var bundleId: String
    public var behaviour: AppBehaviour
    public var voipToken: TokenValue
    public var ios: OSVersion
    public var environment: APNsEnvironment
    public var isForeground = false
    public var isForceQuit = false
    public var isLoggedIn = true
    public var alertToken: TokenValue
    /// CallKit entitlement; without it `reportNewIncomingCall` fails with `unentitled`.
    public var isEntitled = true
    /// Which framework the app reports its calls to.
    public var framework = CallFramework.callKit
    /// Set when the system stopped delivering VoIP pushes to the app (until reinstall).
    public var isVoIPBlocked = false
    /// Which issue of tokens the app holds (the world's count): a push keeps the one it was sent to.
    var tokenEpoch: UInt32 = 0
    /// (day number, VoIP pushes delivered that day), for the folklore daily budget.
    var budget: (day: Int32, count: Int32) = (0, 0)
    /// Unreported VoIP pushes that got the app killed, since install.
    public var unreportedKills = 0
    /// The latest call ids this app reported, for `callUUIDAlreadyExists`: each app's CXProvider
    /// detects its own duplicates, so two apps on one phone may report the same id.
    var reportedCalls = RecentCalls()

    public init(
        bundleId: String, ios: OSVersion, behaviour: AppBehaviour, environment: APNsEnvironment,
        voipToken: TokenValue, alertToken: TokenValue
    ) {
        self.bundleId = bundleId
        self.ios = ios
        self.behaviour = behaviour
        self.environment = environment
        self.voipToken = voipToken
        self.alertToken = alertToken
    }
}

/// A virtual iPhone: online or not, its user's settings, its apps, the push APNs stores for it.
public struct VirtualPhone: Sendable {
    public var id: Int
    public var name: String
    /// Callers that get through Do Not Disturb.
    public var vipCallers: Set<String> = []
    public var blockedCallers: Set<String> = []
    /// The call the user is on, if any.
    public var activeCall: String?
    /// One stored push per app while offline ([SEND], [METRICS]), by bundle id → push number.
    var stored: [String: Int] = [:]
    public var apps: AppList
    // Last, in the apps' tail padding (a million phones: 8 MB).
    public var isOnline: Bool
    public var doNotDisturb = false

    public init(id: Int, name: String, isOnline: Bool, apps: AppList) {
        self.id = id
        self.name = name
        self.isOnline = isOnline
        self.apps = apps
    }

    /// Apps one phone may hold: looking one up is a scan, so the count is bounded (an iPhone's home
    /// screen holds far fewer VoIP apps than this).
    public static let maximumApps = 1000

    public func app(_ bundleId: String) -> VirtualApp? { apps.first { $0.bundleId == bundleId } }
    @inline(__always) func appIndex(_ bundleId: String) -> Int? { apps.firstIndex { $0.bundleId == bundleId } }
}

/// A phone's apps, the first kept inline: most phones hold one VoIP app, and an array per phone
/// cost a heap block each (a million phones, about 50 MB and a pointer chase per push). The first
/// is a plain stored app beside a flag, not an optional: matching an optional's payload copied the
/// whole app out of it first (a memmove and a retain per string, on every push's token check).
public struct AppList: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, Sendable {
    private var head: VirtualApp
    private var rest: [VirtualApp] = []
    /// Changes whenever an app is added or removed (not when one changes in place): an index taken
    /// with the same layout still names the same app (a push keeps its app's index from arrival to
    /// report, without searching the bundle ids again).
    private(set) var layout: UInt32 = 0
    private var hasHead: Bool

    /// What `head` holds while the list is empty (never read as an app).
    private static let vacant = VirtualApp(
        bundleId: "", ios: OSVersion(0), behaviour: .reportsAtOnce, environment: .sandbox,
        voipToken: TokenValue(bytes: []), alertToken: TokenValue(bytes: []))

    public init(_ apps: [VirtualApp] = []) {
        head = apps.first ?? Self.vacant
        hasHead = !apps.isEmpty
        rest = Array(apps.dropFirst())
    }

    public init(arrayLiteral apps: VirtualApp...) { self.init(apps) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { hasHead ? 1 + rest.count : 0 }

    public subscript(index: Int) -> VirtualApp {
        get {
            precondition(index >= 0 && index < endIndex, "app index out of range")
            return index == 0 ? head : rest[index - 1]
        }
        _modify {
            precondition(index >= 0 && index < endIndex, "app index out of range")
            if index == 0 {
                yield &head
            } else {
                yield &rest[index - 1]
            }
        }
    }

    /// The index of the first app `matches` accepts, each app borrowed where it lies: a search
    /// through the subscript copies every app it passes (a retain per string and token).
    @inline(__always) func firstIndex(where matches: (borrowing VirtualApp) -> Bool) -> Int? {
        guard hasHead else { return nil }
        if matches(head) { return 0 }
        for index in rest.indices where matches(rest[index]) { return index + 1 }
        return nil
    }

    /// The index of the app in the list at `list` whose token of `kind` is `token` (in `environment`,
    /// when given), each app read where it lies, field by field: a method called on
    /// `phones[id].apps` copied the list out first (a memmove, and a retain per string and token),
    /// on every push.
    @inline(__always) static func index(
        in list: UnsafePointer<AppList>, holding token: TokenValue, kind: TokenKind, environment: APNsEnvironment?
    ) -> Int? {
        guard list.pointee.hasHead else { return nil }
        let head = UnsafeRawPointer(list) + MemoryLayout<AppList>.offset(of: \AppList.head)!
        if VirtualApp.holds(head.assumingMemoryBound(to: VirtualApp.self), token, kind: kind, environment: environment)
        {
            return 0
        }
        return list.pointee.rest.withUnsafeBufferPointer { apps in
            apps.indices.first { VirtualApp.holds(apps.baseAddress! + $0, token, kind: kind, environment: environment) }
                .map { $0 + 1 }
        }
    }

    /// The bundle id of app `index` (see `index(in:holding:kind:environment:)`).
    @inline(__always) func bundleId(at index: Int) -> String {
        precondition(index >= 0 && index < endIndex, "app index out of range")
        return index == 0 ? head.bundleId : rest[index - 1].bundleId
    }

    /// Reads app `index` where it lies (see `firstIndex(where:)`).
    @inline(__always) func read<R>(_ index: Int, _ body: (borrowing VirtualApp) -> R) -> R {
        precondition(index >= 0 && index < endIndex, "app index out of range")
        return index == 0 ? body(head) : body(rest[index - 1])
    }

    mutating func append(_ app: VirtualApp) {
        layout &+= 1
        if hasHead {
            rest.append(app)
        } else {
            head = app
            hasHead = true
        }
    }

    mutating func remove(at index: Int) {
        precondition(index >= 0 && index < endIndex, "app index out of range")
        layout &+= 1
        if index > 0 {
            rest.remove(at: index - 1)
        } else if rest.isEmpty {
            head = Self.vacant
            hasHead = false
        } else {
            head = rest.removeFirst()
        }
    }
}

/// The latest call ids a phone reported, as hashes in a small ring: CallKit refuses a call id it
/// already knows ([CX-ERR] callUUIDAlreadyExists), and a phone that rings every day for years must
/// not keep every id (memory bounded per phone). Hashes are per process (Swift's seeded `Hasher`),
/// so a provider cannot choose colliding ids.
struct RecentCalls: Sendable {
    /// How many call ids a phone remembers.
    static let capacity = 32
    /// The first two ids, in the phone itself: in a large world most phones are called once or
    /// twice, and an array each was a block of the heap a phone, taken when it was first called
    /// (`bench/load.sh`'s soak grew by them as its calls reached new phones).
    private var first: (Int, Int) = (0, 0)
    private var count: UInt8 = 0
    /// From the third on, every id in order, as the latest `capacity` are kept.
    private var hashes = LatestValues<Int>()

    /// Whether a call id whose `hashValue` is `hash` was reported lately.
    func contains(_ hash: Int) -> Bool {
        switch count {
        case 0: false
        case 1: first.0 == hash
        case 2: first.0 == hash || first.1 == hash
        default: hashes.contains(hash)
        }
    }

    /// Records a reported call id by its `hashValue`.
    mutating func insert(_ hash: Int) {
        switch count {
        case 0: first.0 = hash
        case 1: first.1 = hash
        case 2:
            hashes.record(first.0, keeping: Self.capacity)
            hashes.record(first.1, keeping: Self.capacity)
            hashes.record(hash, keeping: Self.capacity)
        default:
            hashes.record(hash, keeping: Self.capacity)
            return
        }
        count += 1
    }
}

/// What a new app on a phone is made of (control API, scenario files).
/// Where an app reports an incoming call: CallKit's `reportNewIncomingCall`, or, since iOS 17.4,
/// LiveCommunicationKit's `ConversationManager.reportNewIncomingConversation`. PushKit's rule is the
/// same for both: report before the delegate returns (the Sinch guide lets apps use either).
public enum CallFramework: String, Sendable, CaseIterable, Codable {
    case callKit = "callkit"
    case liveCommunicationKit = "livecommunicationkit"

    public var name: String {
        switch self {
        case .callKit: return "CallKit"
        case .liveCommunicationKit: return "LiveCommunicationKit"
        }
    }

    /// The first iOS with the framework (LiveCommunicationKit: iOS 17.4, its documentation's availability).
    public var availableFrom: OSVersion {
        switch self {
        case .callKit: return OSVersion(10)
        case .liveCommunicationKit: return OSVersion(17, 4)
        }
    }
}

public struct AppSpec: Sendable {
    public var bundleId: String
    public var ios: OSVersion
    public var behaviour: AppBehaviour
    public var environment: APNsEnvironment
    /// Without the CallKit entitlement every report fails with `unentitled` ([CX-ERR]).
    public var isEntitled: Bool
    /// Which framework the app reports its calls to (`reports-with:`).
    public var framework = CallFramework.callKit

    public init(
        bundleId: String, ios: OSVersion = OSVersion(18), behaviour: AppBehaviour = .reportsAtOnce,
        environment: APNsEnvironment = .sandbox, isEntitled: Bool = true
    ) {
        self.bundleId = bundleId
        self.ios = ios
        self.behaviour = behaviour
        self.environment = environment
        self.isEntitled = isEntitled
    }
}

extension VirtualApp {
    /// Whether the app at `app` holds `token` as its token of `kind` (in `environment`, when given),
    /// each field read where it lies (see `AppList.index(in:holding:kind:environment:)`).
    @inline(__always) static func holds(
        _ app: UnsafePointer<VirtualApp>, _ token: TokenValue, kind: TokenKind, environment: APNsEnvironment?
    ) -> Bool {
        if let environment, app.pointee.environment != environment { return false }
        let offset =
            kind == .voip
            ? MemoryLayout<VirtualApp>.offset(of: \VirtualApp.voipToken)!
            : MemoryLayout<VirtualApp>.offset(of: \VirtualApp.alertToken)!
        return TokenValue.matches((UnsafeRawPointer(app) + offset).assumingMemoryBound(to: TokenValue.self), token)
    }
}
