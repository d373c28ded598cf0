/// Settings of the rules: which profile, which order, which environment.
public struct ValidationSettings: Sendable {
    /// `apple` is faithful; `voipLint` also refuses what a VoIP provider must never send.
    public enum Profile: String, Sendable, CaseIterable {
        case apple
        case voipLint = "voip-lint"
    }

    public var profile: Profile = .apple
    public var order: ValidationOrder = .authFirst
    public var environment: APNsEnvironment = .sandbox
    /// Which spelling to answer for a key of the other environment (docs/apns-facts.md §3.3, §10).
    public var environmentKeyReason: Reason = .badEnvironmentKeyInToken

    public init(
        profile: Profile = .apple, order: ValidationOrder = .authFirst, environment: APNsEnvironment = .sandbox,
        environmentKeyReason: Reason = .badEnvironmentKeyInToken
    ) {
        self.profile = profile
        self.order = order
        self.environment = environment
        self.environmentKeyReason = environmentKeyReason
    }
}

/// The order checks run in. Apple documents none (docs/apns-facts.md §3.5); written down in docs/validation.md.
public enum ValidationOrder: String, Sendable, CaseIterable {
    /// Credentials before the device token, as practitioners' probes suggest APNs does (O): the default.
    case authFirst = "auth-first"
    /// pushy's `MockApnsServer` order: headers and path, then authentication (L).
    case pathFirst = "path-first"

    public var checks: [Check] {
        switch self {
        case .authFirst:
            return [
                .method, .path, .duplicateHeaders, .authentication, .messageId, .topic, .pushType, .priority,
                .expiration, .collapseId, .topicAuthorization, .deviceToken, .payload, .voipLint, .device,
            ]
        case .pathFirst:
            return [
                .messageId, .method, .topic, .collapseId, .priority, .pushType, .path, .deviceToken, .device,
                .authentication, .topicAuthorization, .payload, .duplicateHeaders, .expiration, .voipLint,
            ]
        }
    }
}

/// How a connection authenticates: a JWT per request, or the client certificate of the handshake.
///
/// A struct with one of two parts rather than an enum, so that the provider-token state mutates in
/// place on every request instead of being copied out of an enum payload and back.
public struct ConnectionCredentials: Sendable {
    public var tokenState: TokenAuthentication?
    public var certificate: ClientCertificate?

    public static func token(_ state: TokenAuthentication) -> ConnectionCredentials {
        ConnectionCredentials(tokenState: state, certificate: nil)
    }

    public static func certificate(_ certificate: ClientCertificate) -> ConnectionCredentials {
        ConnectionCredentials(tokenState: nil, certificate: certificate)
    }
}

/// The ordered validation pipeline: a request and the connection's credentials in, a verdict out.
///
/// No I/O and no clock of its own: the time is the `Moment` passed in (the wall clock for `iat` and
/// `apns-expiration`, the world clock for ages). Not pure: a verdict also depends on the `KeyStore`,
/// on the connection's `credentials`, which it reads and updates (the provider token's state, the
/// team it pinned), on `sightings`, which it updates (when each JWT was first seen, on any
/// connection), and, for the device check, on `directory` (the world's device tokens, read).
/// pushy's `ValidatingPushNotificationHandler` is the model; every rule cites its source
/// (docs/apns-facts.md).
public final class Validator: Sendable {
    public let settings: ValidationSettings
    public let keys: KeyStore
    public let directory: any DeviceDirectory
    /// When each JWT was first seen, on any connection judged here.
    public let sightings = JWTSightings()

    public init(settings: ValidationSettings, keys: KeyStore, directory: any DeviceDirectory = EveryTokenRegistered()) {
        self.settings = settings
        self.keys = keys
        self.directory = directory
        checks = settings.order.checks
    }

    private let checks: [Check]

    /// Whether the device check is the last (the default order): then every other check passing and
    /// an active device token mean the push is accepted.
    public var checksDeviceLast: Bool { checks.last == .device }

    /// Without `checkingDevice`, the device check is left to the caller (`deviceRejection(_:token:topic:)`).
    public func validate(
        _ request: PushRequest, credentials: inout ConnectionCredentials, at now: Moment, checkingDevice: Bool = true
    ) -> Result<AcceptedPush, Rejection> {
        var checked: CheckedHeaders?
        return validate(request, credentials: &credentials, at: now, checkingDevice: checkingDevice, checked: &checked)
    }

    /// As `validate(_:credentials:at:checkingDevice:)`; `checked` is what an earlier call on this
    /// connection learnt from the same header block, byte for byte (nil: not known yet). It is set
    /// when every check passed, so that the next request with the block can pass it back.
    public func validate(
        _ request: PushRequest, credentials: inout ConnectionCredentials, at now: Moment, checkingDevice: Bool = true,
        checked: inout CheckedHeaders?
    ) -> Result<AcceptedPush, Rejection> {
        let known = checked != nil
        var state = checked?.state ?? State(request: request)
        if checked?.revisedPath == true { state.token = request.deviceToken }
        // Read once: most blocks that come back are not revised, and every header check is settled.
        let revised = checked.map { $0.revisedId || $0.revisedPath } ?? false
        for check in checks where checkingDevice || check != .device {
            if known, check.readsOnlyHeaders, !revised || checked!.settles(check) { continue }
            if var rejection = run(check, request, &state, credentials: &credentials, now: now) {
                if settings.profile == .voipLint { rejection.notes = state.notes }
                return .failure(rejection)
            }
        }
        if !known {
            checked = CheckedHeaders(state: state.headersPart)
        } else if revised {
            checked!.state.token = state.token
            checked!.revisedId = false
            checked!.revisedPath = false
        }
        let notes = settings.profile == .voipLint ? state.notes : []
        if let last = checked?.accepted, notes.isEmpty, last.learnt(state, collapseId: request.collapseId) {
            return .success(last)
        }
        let accepted = AcceptedPush(
            deviceToken: state.token ?? "", topic: state.topic ?? "", pushType: state.pushType,
            priority: state.priority, expiration: state.expiration, collapseId: request.collapseId,
            keyId: state.keyId, teamId: state.teamId, isFirstValidToken: state.isFirstValidToken, notes: notes)
        checked?.accepted = accepted
        return .success(accepted)
    }

    /// What the checks learn as they go.
    struct State {
        var token: String?
        var topic: String?
        var pushType: PushType?
        var priority: Priority = .immediate
        var expiration: Int64?
        var keyId: String?
        var teamId: String?
        var isFirstValidToken = false
        var notes: [LintNote] = []

        init(request: borrowing PushRequest) {
            token = request.deviceToken
            topic = request.topic
            pushType = request.pushType.flatMap(PushType.init(rawValue:))
        }

        /// What the header checks set, without what the authentication check sets (it runs again).
        var headersPart: State {
            var part = self
            part.keyId = nil
            part.teamId = nil
            part.isFirstValidToken = false
            part.notes = []
            return part
        }

        /// A VoIP push for the lint rules: push type voip, or a `.voip` topic.
        var isVoIP: Bool { pushType == .voip || (topic?.hasByteSuffix(".voip") ?? false) }
    }

    /// The device check's answer for what the directory said of a device token on a topic (nil: active).
    /// The mock asks the world itself when the device check comes last (`checksDeviceLast`), so that
    /// looking the device token up and taking the push are one visit.
    public func deviceRejection(_ lookup: DeviceLookup, token: String, topic: String) -> Rejection? {
        switch lookup {
        case .active: return nil
        case .notForTopic:
            return Rejection(
                .deviceTokenNotForTopic, check: .device,
                detail: "token <\(DeviceTokenSyntax.abbreviated(token))> is not registered for topic <\(topic)>")
        case .unknown:
            return Rejection(
                .badDeviceToken, check: .device,
                detail:
                    "token <\(DeviceTokenSyntax.abbreviated(token))> is not a \(settings.environment.rawValue) token"
            )
        case .unregistered(let since):
            return Rejection(
                .unregistered, check: .device,
                detail: "token <\(DeviceTokenSyntax.abbreviated(token))> is no longer active for <\(topic)>",
                timestamp: since)
        case .topicDisallowed:
            return Rejection(
                .topicDisallowed, check: .device,
                detail:
                    "token <\(DeviceTokenSyntax.abbreviated(token))> is a PushKit VoIP token; its topic is <\(PushType.bundleId(ofTopic: topic)).voip>, not <\(topic)>"
            )
        case .penalized:
            return Rejection(
                .tooManyRequests, check: .device,
                detail:
                    "folklore rule dead-token-penalty (not documented by Apple): this app's team pushed too many dead tokens and is throttled"
            )
        case .throttled:
            return Rejection(
                .tooManyRequests, check: .device,
                detail: "too many requests to token <\(DeviceTokenSyntax.abbreviated(token))> in a short time")
        case .expired:
            return Rejection(
                .expiredToken, check: .device, detail: "token <\(DeviceTokenSyntax.abbreviated(token))> has expired")
        case .full:
            return Rejection(
                .serviceUnavailable, check: .device,
                detail:
                    "Ringside's world follows too many pushes whose outcome is not final yet (a limit of the simulation, not Apple's); send again later"
            )
        }
    }

    private func run(
        _ check: Check, _ request: borrowing PushRequest, _ state: inout State,
        credentials: inout ConnectionCredentials, now: Moment
    ) -> Rejection? {
        switch check {
        case .method:
            // [RESP]: 405 for anything but POST.
            if request.method != "POST" {
                return Rejection(
                    .methodNotAllowed, check: check,
                    detail: "method is <\(request.method ?? "none")>, APNs accepts only <POST>")
            }
        case .path:
            // [SEND]: /3/device/<token>; [RESP]: BadPath, MissingDeviceToken.
            guard let token = request.deviceToken else {
                return Rejection(
                    .badPath, check: check, detail: "path is <\(request.path ?? "none")>, expected </3/device/<token>>")
            }
            if token.isEmpty {
                return Rejection(.missingDeviceToken, check: check, detail: "path </3/device/> names no device token")
            }
        case .duplicateHeaders:
            if let name = request.duplicatedHeaders.first {
                return Rejection(.duplicateHeaders, check: check, detail: "header <\(name)> appears more than once")
            }
        case .authentication:
            return authenticate(request, &state, credentials: &credentials, now: now)
        case .messageId:
            // [SEND]: a canonical UUID.
            if let id = request.apnsId, request.messageId == nil {
                return Rejection(
                    .badMessageId, check: check,
                    detail: "apns-id <\(id)> is not a UUID like <123e4567-e89b-12d3-a456-4266554400a0>")
            }
        case .topic:
            return checkTopic(request, &state, credentials: credentials)
        case .pushType:
            return checkPushType(request, state)
        case .priority:
            return checkPriority(request, &state)
        case .expiration:
            // [SEND]: UNIX epoch seconds; 0 = do not store.
            if let text = request.expiration {
                // Digits only: `Int64` would also read "+5".
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(text), value >= 0 else {
                    return Rejection(
                        .badExpirationDate, check: check,
                        detail: "apns-expiration <\(text)> is not a UNIX time in seconds")
                }
                state.expiration = value
            }
        case .collapseId:
            // [SEND]: at most 64 bytes.
            if let id = request.collapseId, id.utf8.count > 64 {
                return Rejection(
                    .badCollapseId, check: check,
                    detail: "apns-collapse-id is \(id.utf8.count) bytes, at most 64 allowed")
            }
        case .topicAuthorization:
            return authorizeTopic(state, credentials: &credentials)
        case .deviceToken:
            if let token = state.token, !token.isEmpty, !DeviceTokenSyntax.isWellFormed(token) {
                return Rejection(
                    .badDeviceToken, check: check,
                    detail:
                        "device token <\(DeviceTokenSyntax.abbreviated(token))> is not an even number of hexadecimal digits"
                )
            }
        case .payload:
            // [SEND], [PAYLOAD]: a body is required; 4096 bytes, 5120 for VoIP.
            if request.bodyLength == 0 {
                return Rejection(.payloadEmpty, check: check, detail: "the request has no body")
            }
            let limit = (state.pushType ?? .alert).payloadLimit
            if request.bodyLength > limit {
                return Rejection(
                    .payloadTooLarge, check: check,
                    detail:
                        "payload is \(request.bodyLength) bytes, the limit for \(state.pushType?.rawValue ?? "this") push type is \(limit)"
                )
            }
        case .voipLint:
            return lint(request, state, now: now)
        case .device:
            // The deviceToken check runs before this one in both orders: the syntax is settled.
            guard let token = state.token, let topic = state.topic, !token.isEmpty else { return nil }
            return deviceRejection(
                directory.lookup(token: token, topic: topic, environment: settings.environment, now: now.world),
                token: token, topic: topic)
        }
        return nil
    }

    private func authenticate(
        _ request: borrowing PushRequest, _ state: inout State, credentials: inout ConnectionCredentials, now: Moment
    ) -> Rejection? {
        if let certificate = credentials.certificate {
            // [CERT]; the `authorization` header is ignored on a certificate connection.
            if certificate.topics.isEmpty {
                return Rejection(
                    .badCertificate, check: .authentication,
                    detail:
                        "the client certificate <\(certificate.commonName ?? "?")> names no APNs topic (no UID, no 1.2.840.113635.100.6.3.6)"
                )
            }
            if !certificate.environments.contains(settings.environment) {
                let has = certificate.environments.map(\.rawValue).sorted().joined(separator: ", ")
                return Rejection(
                    .badCertificateEnvironment, check: .authentication,
                    detail:
                        "the client certificate is for <\(has.isEmpty ? "no environment" : has)>, this is \(settings.environment.rawValue)"
                )
            }
            return nil
        }
        let result = credentials.tokenState!.authenticate(
            authorization: request.authorization, keys: keys, environment: settings.environment,
            environmentKeyReason: settings.environmentKeyReason, sightings: sightings, at: now)
        switch result {
        case .failure(let rejection): return rejection
        case .success(let accepted):
            state.keyId = accepted.keyId
            state.teamId = accepted.teamId
            state.isFirstValidToken = accepted.isFirstValidToken
            state.notes = accepted.notes
            return nil
        }
    }

    private func checkTopic(_ request: borrowing PushRequest, _ state: inout State, credentials: ConnectionCredentials)
        -> Rejection?
    {
        guard let topic = state.topic else {
            // [RESP] MissingTopic; [LEGACY]: a single-topic certificate's subject is the default topic.
            if let certificate = credentials.certificate, certificate.topics.count == 1 {
                state.topic = certificate.topics[0]
                return nil
            }
            return Rejection(
                .missingTopic, check: .topic,
                detail: "no apns-topic header; name the topic, e.g. <com.example.app.voip>")
        }
        // A bundle id is letters, digits, '-' and '.'; anything else cannot be a topic.
        let isBundleSyntax =
            !topic.isEmpty
            && topic.allBytes { byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                    || byte == 45 || byte == 46
            }
        if !isBundleSyntax {
            return Rejection(
                .badTopic, check: .topic,
                detail: "apns-topic <\(topic)> is not a bundle id with an optional push-type suffix")
        }
        return nil
    }

    private func checkPushType(_ request: borrowing PushRequest, _ state: State) -> Rejection? {
        if let text = request.pushType, state.pushType == nil {
            return Rejection(
                .invalidPushType, check: .pushType,
                detail:
                    "apns-push-type <\(text)> is not one of \(PushType.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        guard let type = state.pushType, let topic = state.topic else { return nil }
        let implied = PushType.implied(byTopic: topic)
        if let suffix = type.topicSuffix, !topic.hasByteSuffix(suffix) {
            // A VoIP push to the bare bundle id: TopicDisallowed (O: PyAPNs2 #70).
            return Rejection(
                .topicDisallowed, check: .pushType,
                detail:
                    "push type <\(type.rawValue)> needs topic <\(PushType.bundleId(ofTopic: topic))\(suffix)>, got <\(topic)>",
                lint: type == .voip && settings.profile == .voipLint ? .topicWithoutVoipSuffix : nil)
        }
        if let implied, implied != type, type != .mdm {
            // A `.voip` topic with push type `alert`: InvalidPushType (O: AndrewBarba/apns2 #23).
            return Rejection(
                .invalidPushType, check: .pushType,
                detail: "topic <\(topic)> is for push type <\(implied.rawValue)>, the request says <\(type.rawValue)>",
                lint: implied == .voip && settings.profile == .voipLint ? .pushTypeNotVoip : nil)
        }
        return nil
    }

    private func checkPriority(_ request: borrowing PushRequest, _ state: inout State) -> Rejection? {
        // [SEND]: 10, 5 or 1, default 10; a background push must be 5.
        guard let text = request.priority else { return nil }
        // Exactly "10", "5" or "1": `Int` would also read "+10" or "0010".
        guard ["10", "5", "1"].contains(text), let value = Int(text), let priority = Priority(rawValue: value) else {
            return Rejection(.badPriority, check: .priority, detail: "apns-priority <\(text)> is not 10, 5 or 1")
        }
        if state.pushType == .background, priority == .immediate {
            return Rejection(
                .badPriority, check: .priority, detail: "a background push must have apns-priority <5>, got <10>")
        }
        state.priority = priority
        return nil
    }

    private func authorizeTopic(_ state: State, credentials: inout ConnectionCredentials) -> Rejection? {
        guard let topic = state.topic else { return nil }
        if let certificate = credentials.certificate {
            // [SEND]: location pushes need token authentication, whatever the certificate carries.
            if state.pushType == .location {
                return Rejection(
                    .forbidden, check: .topicAuthorization,
                    detail: "push type <location> is allowed with token authentication only")
            }
            // pushy's TLS mock answers BadTopic for a topic the certificate does not carry.
            if !certificate.topics.contains(topic) {
                return Rejection(
                    .badTopic, check: .topicAuthorization,
                    detail:
                        "the client certificate allows <\(certificate.topics.joined(separator: ", "))>, not <\(topic)>")
            }
        } else if let authentication = credentials.tokenState {
            guard let team = authentication.pinnedTeamId ?? state.teamId else { return nil }
            // A connection is bound to one team ([TOKEN]) and keys never change while serving, so a
            // topic authorized once stays authorized on this connection.
            if authentication.lastAuthorizedTopic == topic { return nil }
            let bundle = PushType.bundleId(ofTopic: topic)
            if !(keys.teams[team]?.contains(bundle) ?? false) {
                return Rejection(
                    .topicDisallowed, check: .topicAuthorization, detail: "team <\(team)> has no app <\(bundle)>")
            }
            credentials.tokenState!.lastAuthorizedTopic = topic
        }
        return nil
    }

    private func lint(_ request: borrowing PushRequest, _ state: State, now: Moment) -> Rejection? {
        guard settings.profile == .voipLint, state.isVoIP else { return nil }
        if let topic = state.topic, !topic.hasByteSuffix(".voip") {
            return Rejection(
                .topicDisallowed, check: .voipLint, detail: "topic <\(topic)>, expected <\(topic).voip>",
                lint: .topicWithoutVoipSuffix)
        }
        if state.pushType != .voip {
            return Rejection(
                .invalidPushType, check: .voipLint,
                detail: "apns-push-type <\(request.pushType ?? "none")>, expected <voip>", lint: .pushTypeNotVoip)
        }
        if state.priority != .immediate {
            return Rejection(
                .badPriority, check: .voipLint, detail: "apns-priority <\(state.priority.rawValue)>, expected <10>",
                lint: .priorityNotImmediate)
        }
        // 0, or a time at or before arrival (aioapns sends `now` for time_to_live=0): one attempt,
        // never stored ([SEND]: APNs stores a push only "until the specified date"). The provider
        // reads its own clock: the wall clock, whatever the world's has been advanced to.
        guard let expiration = state.expiration, expiration == 0 || Double(expiration) <= now.wall else {
            return Rejection(
                .badExpirationDate, check: .voipLint,
                detail: "apns-expiration <\(request.expiration ?? "none")>, expected <0> (or a time already past)",
                lint: .nonZeroExpiration)
        }
        return nil
    }
}

/// The canonical UUID form, 8-4-4-4-12 hexadecimal digits, either case ([SEND]).
public enum UUIDSyntax {
    /// Read over the string's own bytes: an iterator over its `utf8` view (with `enumerated`) cost
    /// 5% of the mock's CPU under the built-in provider, which sends an apns-id with every push.
    public static func isCanonical(_ text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable(isCanonical) { return answer }
        return Array(text.utf8).withUnsafeBufferPointer(isCanonical)
    }

    public static func isCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { bits(bytes) != nil }

    /// A canonical UUID's 128 bits (the first byte's in the high bits of `high`); nil for
    /// anything else. One pass, a table lookup a byte (a check, then a parse, were a tenth of the
    /// world thread's work in a load, keying calls by `CallKey`).
    public static func bits(_ bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64)? {
        guard bytes.count == 36 else { return nil }
        return nibbles.withUnsafeBufferPointer { nibbles in
            var words: (UInt64, UInt64) = (0, 0)
            var wrong: UInt8 = 0
            var digits = 0
            for index in 0..<36 {
                let byte = bytes[index]
                if Self.dashes >> UInt64(index) & 1 == 1 {
                    wrong |= byte ^ UInt8(ascii: "-")
                    continue
                }
                let nibble = nibbles[Int(byte)]
                wrong |= nibble & 0xf0
                if digits < 16 {
                    words.0 = words.0 << 4 | UInt64(nibble & 0x0f)
                } else {
                    words.1 = words.1 << 4 | UInt64(nibble & 0x0f)
                }
                digits += 1
            }
            return wrong == 0 ? words : nil
        }
    }

    /// The dashes' places, as bits.
    private static let dashes: UInt64 = 1 << 8 | 1 << 13 | 1 << 18 | 1 << 23

    /// A byte's value as a hexadecimal digit of either case; 0xff for any other byte.
    private static let nibbles: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0xff
        }
    }
}
