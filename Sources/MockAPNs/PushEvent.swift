import APNs
import World

/// What happened to one request or connection: the value every observer (log, transcript, tests) reads.
public enum MockEvent: Sendable {
    case connectionOpened(connection: UInt64, peer: String, alpn: String?, authentication: String, at: Moment)
    case connectionRefused(peer: String, why: String, at: Moment)
    case push(PushRecord)
    case goAway(connection: UInt64, lastStreamId: Int32?, reason: Reason, at: Moment)
    /// A stream refused unprocessed (RST_STREAM REFUSED_STREAM), and what that means.
    case streamRefused(connection: UInt64, streamId: Int32, why: String, at: Moment)
    case connectionClosed(connection: UInt64, why: String, at: Moment)
    /// The mock's SETTINGS_MAX_CONCURRENT_STREAMS for a connection, and why it is that.
    case settings(connection: UInt64, maxConcurrentStreams: UInt32, why: String, at: Moment)
    /// A push's ring outcome became final in the world.
    case outcome(PushFate)
}

/// One request and the answer it got.
public struct PushRecord: Sendable {
    public var connection: UInt64
    public var streamId: Int32
    public var at: Moment
    public var request: PushRequest
    /// The `apns-id` of the response.
    public var messageId: MessageId
    public var apnsId: String { messageId.description }
    public var status: Int
    /// Nil when accepted.
    public var rejection: Rejection?
    /// The accepted push, with what validation established.
    public var accepted: AcceptedPush?
    /// Set when a fault plan, not a rule, decided the answer.
    public var fault: String?

    /// `voip-lint`'s notes on the JWT this request verified, whatever the answer.
    public var notes: [LintNote] { accepted?.notes ?? rejection?.notes ?? [] }
}

extension PushRecord {
    /// The note of an answer a delay fault held back.
    static func answeredAfter(_ seconds: Double) -> String { "answered after \(seconds) s (fault plan)" }

    /// When the provider could first read the answer (wall clock): nil for a push answered with
    /// nothing (dropped, reset); `seconds` after it arrived for one a delay fault held back.
    public var answeredAt: Double? {
        guard status != 0 else { return nil }
        let prefix = "answered after "
        if let fault, fault.hasPrefix(prefix), let seconds = Double(fault.dropFirst(prefix.count).prefix { $0 != " " })
        {
            return at.wall + seconds
        }
        return at.wall
    }
}

/// Watches the mock; observers never decide anything (pushy's `MockApnsServerListener`).
public protocol MockObserver: Sendable {
    /// `consuming`: an observer that keeps the event (the transcript) takes it without a copy; one
    /// that only reads it may take it as it likes.
    func observe(_ event: consuming MockEvent)
    /// The event lent, for an observer that only reads it (the log): `emit` lends it to every
    /// observer but the last, which takes it. By default, `observe` takes a copy.
    func read(_ event: borrowing MockEvent)
    /// A worker finished a turn of its event loop (and the mock is stopping): an observer that
    /// gathers what it writes writes it now.
    func flush()
    /// False for an observer that only reads events (`read`), whatever order it was added in: it
    /// goes before those that keep them, so that the last, which is handed each event itself, is
    /// one that keeps it (`MockAPNs.addObserver`).
    var keepsEvents: Bool { get }
}

extension MockObserver {
    public func read(_ event: borrowing MockEvent) { observe(copy event) }
    public func flush() {}
    public var keepsEvents: Bool { true }
}
