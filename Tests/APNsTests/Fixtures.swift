import APNs
import Foundation

/// The committed test credentials (certs-test/) and request builders shared by the rule tests.
enum Fixtures {
    static let certs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("certs-test").path
    static let keys: KeyStore = try! KeyStore.load(directory: certs)
    static let topic = "com.ringside.testapp.voip"
    static let token = String(repeating: "ab", count: 32)
    static let start = Moment(1_800_000_000)

    static func signingKey(_ keyId: String) -> ES256Key {
        try! ES256Key(pem: String(contentsOfFile: "\(certs)/AuthKey_\(keyId).p8", encoding: .utf8))
    }

    static func jwt(
        keyId: String = "RINGKEY001", teamId: String = "RINGTEAM01", issuedAt: Double = start.wall, der: Bool = false
    ) -> String {
        try! ProviderToken.sign(
            keyId: keyId, teamId: teamId, issuedAt: Int64(issuedAt), key: signingKey(keyId), derSignature: der)
    }

    static func certificate(_ name: String) -> ClientCertificate {
        try! ClientCertificate(pem: String(contentsOfFile: "\(certs)/client-\(name).pem", encoding: .utf8))
    }

    /// Apple's VoIP example: POST, `.voip` topic, push type voip, priority 10, expiration 0, a JSON body.
    static func voipPush(token: String = token, authorization: String? = "bearer \(jwt())") -> PushRequest {
        var request = PushRequest()
        request.add(name: ":method", value: "POST")
        request.add(name: ":path", value: "/3/device/\(token)")
        if let authorization { request.add(name: "authorization", value: authorization) }
        request.add(name: "apns-topic", value: topic)
        request.add(name: "apns-push-type", value: "voip")
        request.add(name: "apns-priority", value: "10")
        request.add(name: "apns-expiration", value: "0")
        request.body = Array(#"{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}"#.utf8)
        request.bodyLength = request.body.count
        return request
    }
}

/// Both ways a provider authenticates; the rule tests run under each (docs/architecture.md, "Both authentications").
enum AuthMode: String, CaseIterable, CustomStringConvertible {
    case token, certificate
    var description: String { rawValue }

    func credentials() -> ConnectionCredentials {
        switch self {
        case .token: return .token(TokenAuthentication())
        case .certificate: return .certificate(Fixtures.certificate("voip"))
        }
    }
}

extension PushRequest {
    /// The request with one header replaced (or removed with nil).
    func with(_ name: String, _ value: String?) -> PushRequest {
        var copy = PushRequest()
        let fields: [(String, String?)] = [
            (":method", method), (":path", path), ("authorization", authorization), ("apns-id", apnsId),
            ("apns-expiration", expiration), ("apns-priority", priority), ("apns-topic", topic),
            ("apns-push-type", pushType), ("apns-collapse-id", collapseId),
        ]
        for (field, current) in fields {
            let chosen = field == name ? value : current
            if let chosen { copy.add(name: field, value: chosen) }
        }
        copy.body = body
        copy.bodyLength = bodyLength
        return copy
    }

    func withBody(_ bytes: Int) -> PushRequest {
        var copy = self
        copy.body = Array(repeating: UInt8(ascii: " "), count: bytes)
        copy.bodyLength = bytes
        return copy
    }
}

func validate(
    _ request: PushRequest, mode: AuthMode, settings: ValidationSettings = ValidationSettings(),
    directory: any DeviceDirectory = EveryTokenRegistered(), at now: Moment = Fixtures.start
) -> Result<AcceptedPush, Rejection> {
    var credentials = mode.credentials()
    return Validator(settings: settings, keys: Fixtures.keys, directory: directory)
        .validate(request, credentials: &credentials, at: now)
}

extension Result where Failure == Rejection {
    var reason: Reason? {
        if case .failure(let rejection) = self { return rejection.reason }
        return nil
    }
    var rejection: Rejection? {
        if case .failure(let rejection) = self { return rejection }
        return nil
    }
}
