import Foundation

/// An APNs provider token: a JWT with header `{alg: ES256, kid}` and claims `{iss, iat}` ([TOKEN]).
public struct ProviderToken: Sendable, Equatable {
    public var keyId: String
    public var teamId: String
    /// Issued-at, seconds since 1970.
    public var issuedAt: Int64
    /// Digits, with at most one `.` between digits: what a numeric-string `iat` looks like.
    static func isDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && text.utf8.count <= 32
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// The `iat` values read at all: 1970 to 2100 (seconds since 1970).
    public static let issuedAtRange = 0.0...4_102_444_800.0
    public var algorithm: String?
    /// The signed part, `<header>.<claims>`, as bytes.
    public var signingInput: [UInt8]
    public var signature: [UInt8]
    /// Encodings Apple accepts but does not document (`voip-lint` notes them).
    public var notes: [LintNote] = []

    /// Parses a compact JWS; says what is wrong in words when it cannot.
    public static func parse(_ jwt: Substring) -> Result<ProviderToken, TokenProblem> {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(TokenProblem("a JWT has three dot-separated parts, this has \(parts.count)"))
        }
        guard let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return .failure(TokenProblem("a part is not base64url")) }
        guard let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any] else {
            return .failure(TokenProblem("the JWT header is not a JSON object"))
        }
        guard let claims = (try? JSONSerialization.jsonObject(with: Data(claimBytes))) as? [String: Any] else {
            return .failure(TokenProblem("the JWT claims are not a JSON object"))
        }
        guard let keyId = header["kid"] as? String else {
            return .failure(TokenProblem("the header has no string 'kid'"))
        }
        guard let teamId = claims["iss"] as? String else {
            return .failure(TokenProblem("the claims have no string 'iss'"))
        }
        // Apple documents `iat` as seconds since 1970 and accepts it as an integer, a fraction
        // (PyAPNs2 and its forks sign `time.time()`) or a numeric string (kalyke; APNSwift until
        // 2026): clients that deliver through Apple every day (issue 10). pushy's mock refuses the
        // last two (docs/apns-facts.md §4.1); Apple does not.
        let seconds: Double
        switch claims["iat"] {
        // A JSON boolean bridges to NSNumber too (true as 1): not a time.
        case let number as NSNumber where !(claims["iat"] is String) && !"\(type(of: number))".contains("Boolean"):
            seconds = number.doubleValue
        case let text as String where Self.isDecimal(text):
            seconds = Double(text) ?? .nan
        default:
            return .failure(TokenProblem("the claims have no numeric 'iat' (seconds since 1970)"))
        }
        // A time out of every plausible range is refused here, before any arithmetic on it can trap.
        guard seconds.isFinite, Self.issuedAtRange.contains(seconds) else {
            return .failure(
                TokenProblem("the claims' 'iat' \(claims["iat"] ?? "") is not a time between 1970 and 2100"))
        }
        let issuedAt = Int64(seconds.rounded(.down))
        var notes: [LintNote] = []
        if claims["iat"] is String {
            notes.append(.issuedAtString)
        } else if seconds != seconds.rounded(.down) {
            notes.append(.issuedAtFraction)
        }
        if claims.keys.contains(where: { $0 != "iss" && $0 != "iat" }) { notes.append(.extraClaims) }
        if header.keys.contains(where: { !["alg", "kid", "typ"].contains($0) }) { notes.append(.extraHeaderFields) }
        if signature.count != 64 { notes.append(.derSignature) }
        return .success(
            ProviderToken(
                keyId: keyId, teamId: teamId, issuedAt: issuedAt, algorithm: header["alg"] as? String,
                signingInput: Array(jwt.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)),
                signature: signature, notes: notes))
    }

    /// Makes a signed JWT (raw R‖S signature unless `derSignature`).
    public static func sign(
        keyId: String, teamId: String, issuedAt: Int64, key: ES256Key, derSignature: Bool = false
    ) throws(CryptoError) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(keyId)"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"\#(teamId)","iat":\#(issuedAt)}"#.utf8))
        let input = "\(header).\(claims)"
        let signature = try key.sign(Array(input.utf8), der: derSignature)
        return "\(input).\(Base64URL.encode(signature))"
    }

    /// The JWT with its signature cut off, for transcripts (docs/architecture.md: secrets are redacted).
    public static func redacted(_ authorization: String) -> String {
        guard let lastDot = authorization.lastIndex(of: ".") else { return authorization }
        return authorization[..<lastDot] + ".<signature redacted>"
    }
}

/// Why a JWT could not be read or trusted, in words for logs.
public struct TokenProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
