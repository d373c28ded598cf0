/// One fault to arm on the fake APNs, as a value: the one vocabulary that the control API's
/// `POST /faults` JSON and a scenario's `fault:` step are both read into, so that the two cannot
/// drift apart (MockAPNs arms it; this module only names it).
public struct FaultSpec: Sendable, Equatable {
    /// The words a fault is armed with, in the control API (`"action"`) and in scenarios (`fault:`,
    /// where an APNs reason stands for `answer`).
    public enum Action: String, Sendable, CaseIterable {
        /// Answer with a reason, whatever the rules say.
        case answer
        /// Never answer: the stream stays open until the provider gives up.
        case drop
        /// Judge as usual, answer late.
        case delay
        /// Send GOAWAY once some pushes were accepted.
        case goaway
        /// A connection idle too long answers 500 InternalServerError until the provider opens a new one.
        case staleConnections = "stale-connections"
        /// After a rejected push, MAX_CONCURRENT_STREAMS drops to 1 until the next accepted one.
        case lowerStreamsAfterRejection = "lower-streams-after-rejection"
        /// New connections get a server certificate from a CA the provider does not trust.
        case untrustedServerCertificate = "untrusted-server-certificate"
        /// New connections get their SETTINGS only after some seconds: a client that does not wait
        /// for them sends its burst over the limit of one stream (requirement 24, made certain).
        case holdSettings = "hold-settings"

        /// What the action does, for help texts and `ringside explain`.
        public var summary: String {
            switch self {
            case .answer: return "answer the next matching requests with an APNs reason"
            case .drop: return "never answer the next matching requests"
            case .delay: return "answer the next matching requests late"
            case .goaway: return "send GOAWAY after some accepted pushes"
            case .staleConnections: return "answer 500 on a connection idle for longer than some seconds"
            case .lowerStreamsAfterRejection: return "drop MAX_CONCURRENT_STREAMS to 1 after a rejected push"
            case .untrustedServerCertificate: return "present a server certificate the provider does not trust"
            case .holdSettings: return "read what a new connection sends for some seconds before sending SETTINGS"
            }
        }

        /// Whether the action applies to some requests (and so takes a count and a match), rather than
        /// switching a behaviour of the whole mock on or off.
        public var isPerRequest: Bool {
            switch self {
            case .answer, .drop, .delay, .goaway: return true
            case .staleConnections, .lowerStreamsAfterRejection, .untrustedServerCertificate, .holdSettings:
                return false
            }
        }
    }

    /// What the fault does, with what it needs.
    public enum Kind: Sendable, Equatable {
        case answer(Reason)
        case drop
        case delay(seconds: Double)
        /// GOAWAY with `reason` once `afterAccepted` pushes were accepted after arming.
        case goAway(afterAccepted: Int, reason: Reason)
        case staleConnections(idleSeconds: Double)
        case lowerStreamsAfterRejection(on: Bool)
        case untrustedServerCertificate(on: Bool)
        /// A new connection's first frames (SETTINGS) wait `seconds` after its handshake, and what
        /// the client sent meanwhile is read at once; 0 switches it off.
        case holdSettings(seconds: Double)

        public var action: Action {
            switch self {
            case .answer: return .answer
            case .drop: return .drop
            case .delay: return .delay
            case .goAway: return .goaway
            case .staleConnections: return .staleConnections
            case .lowerStreamsAfterRejection: return .lowerStreamsAfterRejection
            case .untrustedServerCertificate: return .untrustedServerCertificate
            case .holdSettings: return .holdSettings
            }
        }
    }

    /// Which requests a per-request fault applies to; nil fields match all.
    public struct Match: Sendable, Equatable {
        public var deviceToken: String?
        public var connection: UInt64?
        /// World-time window, seconds since 1970.
        public var from: Double?
        public var until: Double?

        public init(deviceToken: String? = nil, connection: UInt64? = nil, from: Double? = nil, until: Double? = nil) {
            self.deviceToken = deviceToken
            self.connection = connection
            self.from = from
            self.until = until
        }
    }

    public var kind: Kind
    /// How many matching requests it applies to (GOAWAY fires once).
    public var count: Int
    public var match: Match

    public init(_ kind: Kind, count: Int = 1, match: Match = Match()) {
        self.kind = kind
        self.count = count
        self.match = match
    }

    /// The ranges every reader of a fault holds numbers to: beyond them a fault means nothing
    /// useful, and arithmetic on them could trap.
    public static let counts = 1...1_000_000
    public static let seconds = 0.0...86_400.0
    /// How long SETTINGS may be held: a handshake's worth, never long enough to look like a dead
    /// server to a client that waits for them.
    public static let heldSettings = 0.0...5.0
}
