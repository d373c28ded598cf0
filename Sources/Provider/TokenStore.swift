import APNs

/// The provider's device tokens: per user, environment and kind ([REG]: apps register on every launch).
/// Unchecked Sendable: used from one thread at a time, that of the `ReferenceProvider` owning it;
/// `entries` has no lock.
public final class TokenStore: @unchecked Sendable {
    public struct Entry: Sendable, Equatable {
        public var user: String
        public var token: String
        public var environment: APNsEnvironment
        public var kind: Kind
        /// When the app last registered this token (seconds since 1970): compared with a 410's timestamp.
        public var registeredAt: Double
    }

    /// PushKit VoIP tokens ring; regular notification tokens do not.
    public enum Kind: String, Sendable { case voip, alert }

    public private(set) var entries: [Entry] = []
    /// Keep one entry per token (false reproduces "registers the same device twice").
    let deduplicates: Bool

    public init(deduplicates: Bool = true) { self.deduplicates = deduplicates }

    public func register(
        user: String, token: String, environment: APNsEnvironment = .sandbox, kind: Kind = .voip, at now: Double
    ) {
        if deduplicates, let index = entries.firstIndex(where: { $0.token == token.lowercased() }) {
            entries[index].user = user
            entries[index].registeredAt = now
            return
        }
        entries.append(
            Entry(user: user, token: token.lowercased(), environment: environment, kind: kind, registeredAt: now))
    }

    public func unregister(token: String) { entries.removeAll { $0.token == token.lowercased() } }

    /// One user logs out on a device: the token stays registered for its other users.
    public func unregister(user: String, token: String) {
        entries.removeAll { $0.user == user && $0.token == token.lowercased() }
    }

    public func tokens(for user: String, kind: Kind? = nil) -> [Entry] {
        entries.filter { $0.user == user && (kind == nil || $0.kind == kind) }
    }

    /// Forgets a token APNs refused for good. A 410's timestamp counts only if the app did not register
    /// the token again after it ([RESP]).
    public func forget(token: String, unregisteredAt milliseconds: Int64? = nil) {
        entries.removeAll { entry in
            guard entry.token == token.lowercased() else { return false }
            guard let milliseconds else { return true }
            // Both at millisecond precision: APNs' timestamp is whole milliseconds ([RESP]).
            return Int64((entry.registeredAt * 1000).rounded(.down)) <= milliseconds
        }
    }
}
