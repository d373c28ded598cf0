import APNs
import Foundation

/// The provider token a careful provider sends: one JWT reused for 50 minutes, never replaced sooner
/// than 20 minutes after the last one, replaced at once after `ExpiredProviderToken` ([TOKEN]: refresh
/// at least every 60 and at most every 20 minutes; pushy and apns2 use 50).
public struct ProviderTokenCache: Sendable {
    public static let reuseFor: Double = 50 * 60
    public static let minimumInterval: Double = 20 * 60

    let keyId: String
    let teamId: String
    let key: ES256Key
    private var current: (jwt: String, issuedAt: Double)?
    private var mustRefresh = false
    /// How many JWTs this cache has signed (a provider that signs per request is the classic mistake).
    public private(set) var signed = 0

    public init(keyId: String, teamId: String, key: ES256Key) {
        self.keyId = keyId
        self.teamId = teamId
        self.key = key
    }

    /// The JWT to send at `now` (wall-clock seconds, what `iat` is made of).
    public mutating func token(at now: Double) throws(CryptoError) -> String {
        // Reused until 50 minutes old (well past the 20-minute floor), or until APNs calls it expired.
        if let current, !mustRefresh, now - current.issuedAt < Self.reuseFor { return current.jwt }
        let jwt = try ProviderToken.sign(keyId: keyId, teamId: teamId, issuedAt: Int64(now), key: key)
        current = (jwt, now)
        mustRefresh = false
        signed += 1
        return jwt
    }

    /// APNs said `ExpiredProviderToken`: the next request gets a new JWT.
    public mutating func expired() { mustRefresh = true }

    /// The same JWT for another connection to send, its signing counted where it was signed.
    public func shared() -> ProviderTokenCache {
        var copy = self
        copy.signed = 0
        return copy
    }

    /// The `authorization` value to send at `now`.
    public mutating func authorization(at now: Double) throws(CryptoError) -> String { "bearer \(try token(at: now))" }

    /// A cache for token authentication, with the key read from its file; nil for certificates.
    public static func load(for authentication: ClientConfiguration.Authentication) throws -> ProviderTokenCache? {
        guard case .token(let keyFile, let keyId, let teamId) = authentication else { return nil }
        let key = try ES256Key(pem: String(contentsOfFile: keyFile, encoding: .utf8))
        return ProviderTokenCache(keyId: keyId, teamId: teamId, key: key)
    }
}
