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

    /// Every entry, in the order registered (an entry registered again keeps its place).
    public var entries: [Entry] { storage.keys.sorted().map { storage[$0]! } }
    /// Entries by a number given in the order registered, with the numbers of each user's and each
    /// token's: a provider with tens of thousands of users (a load scenario) looks one up by its
    /// index, not by reading them all (a list made registering 10,000 phones take 12 s).
    private var storage: [Int: Entry] = [:]
    private var byUser: [String: [Int]] = [:]
    private var byToken: [String: [Int]] = [:]
    private var next = 0
    /// Keep one entry per token (false reproduces "registers the same device twice").
    let deduplicates: Bool

    public init(deduplicates: Bool = true) { self.deduplicates = deduplicates }

    public func register(
        user: String, token: String, environment: APNsEnvironment = .sandbox, kind: Kind = .voip, at now: Double
    ) {
        let token = token.lowercased()
        if deduplicates, let id = byToken[token]?.first, let old = storage[id] {
            byUser[old.user]?.removeAll { $0 == id }
            storage[id]!.user = user
            storage[id]!.registeredAt = now
            byUser[user, default: []].append(id)
            return
        }
        storage[next] = Entry(user: user, token: token, environment: environment, kind: kind, registeredAt: now)
        byUser[user, default: []].append(next)
        byToken[token, default: []].append(next)
        next += 1
    }

    private func remove(_ ids: [Int]) {
        for id in ids {
            guard let entry = storage.removeValue(forKey: id) else { continue }
            byUser[entry.user]?.removeAll { $0 == id }
            if byUser[entry.user]?.isEmpty == true { byUser[entry.user] = nil }
            byToken[entry.token]?.removeAll { $0 == id }
            if byToken[entry.token]?.isEmpty == true { byToken[entry.token] = nil }
        }
    }

    public func unregister(token: String) { remove(byToken[token.lowercased()] ?? []) }

    /// One user logs out on a device: the token stays registered for its other users.
    public func unregister(user: String, token: String) {
        remove((byToken[token.lowercased()] ?? []).filter { storage[$0]?.user == user })
    }

    public func tokens(for user: String, kind: Kind? = nil) -> [Entry] {
        guard let ids = byUser[user] else { return [] }
        // Most users have one phone: no sorting, no arrays between (a load asks for each call).
        if ids.count == 1 {
            guard let entry = storage[ids[0]], kind == nil || entry.kind == kind else { return [] }
            return [entry]
        }
        return ids.sorted().compactMap { storage[$0] }.filter { kind == nil || $0.kind == kind }
    }

    /// Forgets a token APNs refused for good. A 410's timestamp counts only if the app did not register
    /// the token again after it ([RESP]).
    public func forget(token: String, unregisteredAt milliseconds: Int64? = nil) {
        remove(
            (byToken[token.lowercased()] ?? []).filter { id in
                guard let milliseconds, let entry = storage[id] else { return true }
                // Both at millisecond precision: APNs' timestamp is whole milliseconds ([RESP]).
                return Int64((entry.registeredAt * 1000).rounded(.down)) <= milliseconds
            })
    }
}
