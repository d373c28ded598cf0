import APNs

/// Which phone holds a token, per environment ([RESP]: sandbox and production are distinct spaces).
///
/// Live tokens are keyed by a 64-bit fingerprint (their first eight bytes, which APNs tokens fill at
/// random) and checked against the phone's app, so a million phones cost 16 bytes a slot instead of a
/// whole token and record. Fingerprint collisions go to a small exact table; retired tokens (reinstalled,
/// rotated, deleted apps) keep an exact record for their 410.
struct TokenRegistry {
    struct Entry {
        var phone: Int32
        var kind: TokenKind
        var environment: APNsEnvironment
    }

    struct Retired {
        var phone: Int
        var bundleId: String
        var kind: TokenKind
        var retiredAt: Double
    }

    private var live: [UInt64: Entry] = [:]
    private var collisions: [RegistryKey: Entry] = [:]
    private var retired: [RegistryKey: Retired] = [:]

    mutating func reserve(_ count: Int) { live.reserveCapacity(count) }

    private static func fingerprint(_ token: TokenValue, _ environment: APNsEnvironment) -> UInt64 {
        token.words.0 ^ (environment == .production ? 0x9E37_79B9_7F4A_7C15 : 0)
    }

    mutating func register(_ token: TokenValue, environment: APNsEnvironment, phone: Int, kind: TokenKind) {
        let entry = Entry(phone: Int32(phone), kind: kind, environment: environment)
        let key = Self.fingerprint(token, environment)
        if live[key] == nil {
            live[key] = entry
        } else {
            collisions[RegistryKey(environment: environment, token: token)] = entry
        }
    }

    mutating func retire(
        _ token: TokenValue, environment: APNsEnvironment, phone: Int, bundleId: String, kind: TokenKind,
        at now: Double,
        holds: (Entry) -> Bool
    ) {
        let exact = RegistryKey(environment: environment, token: token)
        if collisions.removeValue(forKey: exact) == nil {
            let key = Self.fingerprint(token, environment)
            if let entry = live[key], holds(entry) { live[key] = nil }
        }
        retired[exact] = Retired(phone: phone, bundleId: bundleId, kind: kind, retiredAt: now)
    }

    /// The live entry for a token; `holds` checks that the entry's phone really has this token.
    func live(_ token: TokenValue, environment: APNsEnvironment, holds: (Entry) -> Bool) -> Entry? {
        if let entry = live[Self.fingerprint(token, environment)], entry.environment == environment, holds(entry) {
            return entry
        }
        return collisions.isEmpty ? nil : collisions[RegistryKey(environment: environment, token: token)]
    }

    func retired(_ token: TokenValue, environment: APNsEnvironment) -> Retired? {
        retired.isEmpty ? nil : retired[RegistryKey(environment: environment, token: token)]
    }
}
