import Synchronization

/// Token-based authentication of one connection: the rules of [TOKEN] and docs/apns-facts.md §4.
///
/// A value per connection: it remembers the team and key the connection was bound to at its first
/// push, the JWT in use and when it was first seen. Verifying a JWT costs an ECDSA verification, so a
/// JWT already verified on this connection is only re-judged for its age.
public struct TokenAuthentication: Sendable {
    /// JWTs older than this are refused ([TOKEN]: "no more than one hour").
    public static let tokenLifetime: Double = 3600
    /// A new JWT sooner than this after the previous one is refused ([TOKEN], [RESP]).
    public static let minimumRefreshInterval: Double = 20 * 60
    /// How far in the future an `iat` may be (clock skew). Apple documents none: R.
    public static let allowedFutureSkew: Double = 60

    public private(set) var pinnedTeamId: String?
    public private(set) var pinnedKeyId: String?
    /// The last topic the pinned team was found to own (see `Validator.authorizeTopic`).
    var lastAuthorizedTopic: String?
    private var current: (authorization: String, token: ProviderToken, firstSeen: Moment)?
    private var lastChange: Moment?
    /// Set after `TooManyProviderTokenUpdates`: the connection is unusable until this world time
    /// (A-DTS, forum thread 675879).
    private var blockedUntil: Double?

    public init() {}

    /// Whether the connection has proved a JWT (APNs raises the stream limit then, whatever became of
    /// the push that carried it).
    public var hasValidToken: Bool { current != nil }

    public struct Accepted: Sendable {
        public var keyId: String
        public var teamId: String
        /// True when this request is the connection's first valid JWT (APNs then raises the stream limit).
        public var isFirstValidToken: Bool
        /// The JWT's undocumented encodings, when this request verified it (empty once it is known).
        public var notes: [LintNote] = []
    }

    /// Judges the `authorization` header of one request.
    /// `sightings`: when each JWT was first seen on any connection of the mock (nil: this one only).
    public mutating func authenticate(
        authorization: String?, keys: KeyStore, environment: APNsEnvironment,
        environmentKeyReason: Reason, sightings: JWTSightings? = nil, at now: Moment
    ) -> Result<Accepted, Rejection> {
        // The common case first: the JWT this connection already proved (one memcmp, no parsing).
        // Read in place: binding `current` would copy it, a retain for each of the token's strings.
        if blockedUntil == nil, let authorization, current?.authorization == authorization {
            return checkAge(issuedAt: current!.token.issuedAt, firstSeen: current!.firstSeen, now: now).map {
                Accepted(keyId: current!.token.keyId, teamId: current!.token.teamId, isFirstValidToken: false)
            }
        }
        guard let authorization, authorization.utf8.count > 7,
            authorization.utf8.prefix(7).map({ $0 | 0x20 }) == Array("bearer ".utf8)
        else {
            return .failure(
                Rejection(
                    .missingProviderToken, check: .authentication,
                    detail: authorization == nil
                        ? "no authorization header and no client certificate"
                        : "authorization is not 'bearer <JWT>'"))
        }
        if let blockedUntil, now.world < blockedUntil {
            return .failure(
                Rejection(
                    .tooManyProviderTokenUpdates, check: .authentication,
                    detail:
                        "this connection changed its JWT too often and is unusable for \(Int(blockedUntil - now.world)) s more"
                ))
        }
        let jwt = authorization.dropFirst(7).drop { $0 == " " }
        // The same JWT with another spelling of the scheme or spacing is no new provider token (no 429).
        if let current, current.authorization.utf8.count > 7,
            current.authorization.dropFirst(7).drop(while: { $0 == " " }) == jwt
        {
            return checkAge(issuedAt: current.token.issuedAt, firstSeen: current.firstSeen, now: now).map {
                Accepted(keyId: current.token.keyId, teamId: current.token.teamId, isFirstValidToken: false)
            }
        }
        let token: ProviderToken
        switch ProviderToken.parse(jwt) {
        case .failure(let problem):
            return .failure(Rejection(.invalidProviderToken, check: .authentication, detail: problem.description))
        case .success(let parsed): token = parsed
        }
        if let algorithm = token.algorithm, algorithm != "ES256" {
            return .failure(
                Rejection(
                    .invalidProviderToken, check: .authentication, detail: "alg is <\(algorithm)>, APNs needs <ES256>"))
        }
        guard let key = keys.keys[token.keyId] else {
            return .failure(
                Rejection(
                    .invalidProviderToken, check: .authentication, detail: "no key <\(token.keyId)> is registered"))
        }
        guard key.teamId == token.teamId else {
            return .failure(
                Rejection(
                    .invalidProviderToken, check: .authentication,
                    detail: "key <\(token.keyId)> belongs to team <\(key.teamId)>, the JWT says iss <\(token.teamId)>"))
        }
        guard key.publicKey.verify(signature: token.signature, message: token.signingInput) else {
            return .failure(
                Rejection(
                    .invalidProviderToken, check: .authentication,
                    detail: "the ES256 signature does not verify with key <\(token.keyId)>"))
        }
        if let pinnedTeamId, pinnedTeamId != token.teamId {
            return .failure(
                Rejection(
                    .invalidProviderToken, check: .authentication,
                    detail:
                        "this connection is bound to team <\(pinnedTeamId)> since its first push; the JWT is from team <\(token.teamId)>"
                ))
        }
        if let pinnedKeyId, !keys.areRelated(pinnedKeyId, token.keyId) {
            return .failure(
                Rejection(
                    .unrelatedKeyIdInToken, check: .authentication,
                    detail:
                        "this connection's first push used key <\(pinnedKeyId)>; <\(token.keyId)> is not related to it")
            )
        }
        if let restricted = key.environment, restricted != environment {
            return .failure(
                Rejection(
                    environmentKeyReason, check: .authentication,
                    detail:
                        "key <\(token.keyId)> is restricted to \(restricted.rawValue); this is \(environment.rawValue)")
            )
        }
        // First seen on another connection before the world clock moved: aged from then
        // (docs/architecture.md, "Time").
        let firstSeen = sightings?.firstSeen(String(jwt), at: now) ?? now
        if case .failure(let rejection) = checkAge(issuedAt: token.issuedAt, firstSeen: firstSeen, now: now) {
            return .failure(rejection)
        }
        if let lastChange, now.world - lastChange.world < Self.minimumRefreshInterval {
            blockedUntil = lastChange.world + Self.minimumRefreshInterval
            return .failure(
                Rejection(
                    .tooManyProviderTokenUpdates, check: .authentication,
                    detail:
                        "a new JWT \(Int(now.world - lastChange.world)) s after the previous one; APNs allows one every \(Int(Self.minimumRefreshInterval / 60)) minutes"
                ))
        }
        let isFirst = current == nil
        current = (authorization, token, firstSeen)
        lastChange = now
        pinnedTeamId = token.teamId
        if pinnedKeyId == nil { pinnedKeyId = token.keyId }
        return .success(
            Accepted(keyId: token.keyId, teamId: token.teamId, isFirstValidToken: isFirst, notes: token.notes))
    }

    /// The JWT's age: its `iat` age when first seen (wall clock) plus the world time since
    /// (docs/architecture.md, "Time"). A provider whose clock follows the world's (a scenario runs
    /// it under libfaketime: Scenario/ProviderClock.swift) signs on the world's clock: once the
    /// world runs ahead, an `iat` nearer the world's time than the wall's is read on the world's.
    private func checkAge(issuedAt: Int64, firstSeen: Moment, now: Moment) -> Result<Void, Rejection> {
        let iat = Double(issuedAt)
        let onWorldClock =
            firstSeen.world - firstSeen.wall > Self.allowedFutureSkew
            && abs(firstSeen.world - iat) < abs(firstSeen.wall - iat)
        let age = onWorldClock ? now.world - iat : (firstSeen.wall - iat) + (now.world - firstSeen.world)
        if age > Self.tokenLifetime {
            return .failure(
                Rejection(
                    .expiredProviderToken, check: .authentication,
                    detail:
                        "the JWT was issued \(Int(age)) s ago (iat \(issuedAt)); APNs accepts at most \(Int(Self.tokenLifetime)) s"
                ))
        }
        if age < -Self.allowedFutureSkew {
            return .failure(
                Rejection(
                    .invalidProviderToken, check: .authentication,
                    detail: "the JWT's iat \(issuedAt) is \(Int(-age)) s in the future"))
        }
        return .success(())
    }
}

/// When each JWT was first seen, shared by a mock's connections: a JWT's age is its `iat` age when
/// first seen plus the world time since (docs/architecture.md, "Time"), whichever connection sees
/// it later.
/// The latest `capacity` JWTs are kept; a forgotten one is judged from its next sight.
public final class JWTSightings: Sendable {
    public static let capacity = 4096

    private struct Table {
        var seen: [String: Moment] = [:]
        var order: [String] = []
        var next = 0
    }
    private let table = Mutex(Table())

    public init() {}

    /// When `jwt` was first seen; `now` if this is the first time (and recorded).
    public func firstSeen(_ jwt: String, at now: Moment) -> Moment {
        table.withLock { table in
            if let seen = table.seen[jwt] { return seen }
            table.seen[jwt] = now
            if table.order.count < Self.capacity {
                table.order.append(jwt)
            } else {
                table.seen[table.order[table.next]] = nil
                table.order[table.next] = jwt
                table.next = (table.next + 1) % Self.capacity
            }
            return now
        }
    }
}
