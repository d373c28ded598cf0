import Foundation

/// The signing keys and teams APNs knows: who may sign provider tokens, for which topics and environments.
public struct KeyStore: Sendable {
    /// A key as registered in a developer account ([TOKEN], "key scoping").
    public struct Key: Sendable {
        public var keyId: String
        public var teamId: String
        public var publicKey: ES256Key
        /// Nil for a key valid in both environments (keys made before February 2025).
        public var environment: APNsEnvironment?
        /// A key whose provider tokens may be mixed with this one's on a connection ([TOKEN]).
        public var relatedKeyId: String?
        /// Where the private key is, for the provider contract.
        public var file: String?
    }

    public var keys: [String: Key] = [:]
    /// Team id → the bundle ids it owns.
    public var teams: [String: Set<String>] = [:]

    public init() {}

    /// Loads `keys.json` as in `certs-test/` (keys relative to its folder).
    public static func load(directory: String, file: String = "keys.json") throws -> KeyStore {
        struct Entry: Decodable {
            var keyId: String
            var teamId: String
            var file: String
            var environment: String?
            var relatedKeyId: String?
        }
        struct Document: Decodable {
            var teams: [String: [String]]
            var keys: [Entry]
        }
        let url = URL(fileURLWithPath: directory).appendingPathComponent(file)
        let document = try JSONDecoder().decode(Document.self, from: Data(contentsOf: url))
        var store = KeyStore()
        store.teams = document.teams.mapValues(Set.init)
        for entry in document.keys {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(entry.file).path
            let pem = try String(contentsOfFile: path, encoding: .utf8)
            let environment = entry.environment.flatMap(APNsEnvironment.init(rawValue:))
            store.keys[entry.keyId] = Key(
                keyId: entry.keyId, teamId: entry.teamId, publicKey: try ES256Key(pem: pem),
                environment: environment, relatedKeyId: entry.relatedKeyId, file: path)
        }
        return store
    }

    /// Whether provider tokens of `a` and `b` may share a connection: the same key, or related keys.
    public func areRelated(_ a: String, _ b: String) -> Bool {
        a == b || keys[a]?.relatedKeyId == b || keys[b]?.relatedKeyId == a
    }
}
