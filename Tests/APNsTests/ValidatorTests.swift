import APNs
import Testing

/// The header and path rules, run under both authentication modes.
@Suite struct ValidatorTests {
    @Test("Apple's VoIP example is accepted", arguments: AuthMode.allCases)
    func acceptsAppleExample(mode: AuthMode) throws {
        let accepted = try validate(Fixtures.voipPush(), mode: mode).get()
        #expect(accepted.topic == Fixtures.topic)
        #expect(accepted.pushType == .voip)
        #expect(accepted.priority == .immediate)
        #expect(accepted.expiration == 0)
    }

    /// One mistake each, and the reason APNs gives for it (docs/apns-facts.md §2, §3.3).
    static let mistakes: [(String, @Sendable (PushRequest) -> PushRequest, Reason)] = [
        ("GET instead of POST", { $0.with(":method", "GET") }, .methodNotAllowed),
        ("path /3/foo", { $0.with(":path", "/3/foo") }, .badPath),
        ("no token in the path", { $0.with(":path", "/3/device/") }, .missingDeviceToken),
        ("token not hexadecimal", { $0.with(":path", "/3/device/xyz123") }, .badDeviceToken),
        ("token of odd length", { $0.with(":path", "/3/device/abc") }, .badDeviceToken),
        ("no topic", { $0.with("apns-topic", nil) }, .missingTopic),
        ("topic with a space", { $0.with("apns-topic", "com.ringside testapp") }, .badTopic),
        ("unknown push type", { $0.with("apns-push-type", "ring") }, .invalidPushType),
        ("alert push type with a .voip topic", { $0.with("apns-push-type", "alert") }, .invalidPushType),
        ("voip push type with the bare bundle id", { $0.with("apns-topic", "com.ringside.testapp") }, .topicDisallowed),
        ("priority 7", { $0.with("apns-priority", "7") }, .badPriority),
        (
            "background push with priority 10",
            {
                $0.with("apns-push-type", "background").with("apns-topic", "com.ringside.testapp")
            }, .badPriority
        ),
        ("expiration not a number", { $0.with("apns-expiration", "tomorrow") }, .badExpirationDate),
        ("apns-id not a UUID", { $0.with("apns-id", "1234") }, .badMessageId),
        ("collapse id of 65 bytes", { $0.with("apns-collapse-id", String(repeating: "c", count: 65)) }, .badCollapseId),
        ("empty body", { $0.withBody(0) }, .payloadEmpty),
        ("VoIP payload of 5121 bytes", { $0.withBody(5121) }, .payloadTooLarge),
        (
            "alert payload of 4097 bytes",
            {
                $0.with("apns-push-type", "alert").with("apns-topic", "com.ringside.testapp").withBody(4097)
            }, .payloadTooLarge
        ),
    ]

    @Test("Each single mistake gets its reason", arguments: AuthMode.allCases, mistakes.indices)
    func mistakeGetsReason(mode: AuthMode, index: Int) {
        let (name, mutate, expected) = Self.mistakes[index]
        let result = validate(mutate(Fixtures.voipPush()), mode: mode)
        #expect(result.reason == expected, "\(name)")
        #expect(result.rejection.map { $0.reason.status } == expected.status)
    }

    @Test("Payload limits: 5120 bytes of VoIP and 4096 of alert are accepted", arguments: AuthMode.allCases)
    func payloadLimitsInclusive(mode: AuthMode) {
        #expect(validate(Fixtures.voipPush().withBody(5120), mode: mode).reason == nil)
        let alert = Fixtures.voipPush().with("apns-push-type", "alert").with("apns-topic", "com.ringside.testapp")
        #expect(validate(alert.withBody(4096), mode: mode).reason == nil)
    }

    @Test("Device tokens of any even hexadecimal length are accepted", arguments: [2, 64, 108, 160, 200])
    func anyEvenTokenLength(length: Int) {
        let token = String(repeating: "aB", count: length / 2)
        #expect(validate(Fixtures.voipPush(token: token), mode: .token).reason == nil)
    }

    @Test("A header sent twice is DuplicateHeaders", arguments: AuthMode.allCases)
    func duplicateHeaders(mode: AuthMode) {
        var request = Fixtures.voipPush()
        request.add(name: "apns-priority", value: "10")
        #expect(request.duplicatedHeaders == ["apns-priority"])
        #expect(validate(request, mode: mode).reason == .duplicateHeaders)
    }

    @Test("The device directory's verdicts become 410 and 400 reasons", arguments: AuthMode.allCases)
    func directoryVerdicts(mode: AuthMode) {
        struct Directory: DeviceDirectory {
            let answer: DeviceLookup
            func lookup(token: String, topic: String, environment: APNsEnvironment, now: Double) -> DeviceLookup {
                answer
            }
        }
        let request = Fixtures.voipPush()
        let unregistered = validate(
            request, mode: mode, directory: Directory(answer: .unregistered(sinceMilliseconds: 1_799_000_000_123)))
        #expect(unregistered.reason == .unregistered)
        #expect(unregistered.rejection?.responseBody == #"{"reason":"Unregistered","timestamp":1799000000123}"#)
        #expect(validate(request, mode: mode, directory: Directory(answer: .expired)).reason == .expiredToken)
        #expect(
            validate(request, mode: mode, directory: Directory(answer: .notForTopic)).reason == .deviceTokenNotForTopic)
        #expect(validate(request, mode: mode, directory: Directory(answer: .unknown)).reason == .badDeviceToken)
        #expect(validate(request, mode: mode, directory: Directory(answer: .full)).reason == .serviceUnavailable)
    }

    @Test("Error bodies are {\"reason\":…} without a timestamp except for 410")
    func responseBody() {
        let rejection = Rejection(.badTopic, check: .topic, detail: "x")
        #expect(rejection.responseBody == #"{"reason":"BadTopic"}"#)
    }

    @Test("auth-first judges credentials before the token; path-first (pushy's order) the reverse")
    func validationOrder() {
        let request = Fixtures.voipPush(token: "nothex", authorization: nil)
        #expect(validate(request, mode: .token).reason == .missingProviderToken)
        #expect(
            validate(request, mode: .token, settings: ValidationSettings(order: .pathFirst)).reason == .badDeviceToken)
    }

    @Test("Every check appears exactly once in each order")
    func ordersAreComplete() {
        for order in ValidationOrder.allCases {
            #expect(Set(order.checks) == Set(Check.allCases), "\(order)")
            #expect(order.checks.count == Check.allCases.count, "\(order)")
        }
    }
}

/// The `voip-lint` profile: what Apple accepts but a VoIP provider must never send.
@Suite struct VoIPLintTests {
    static let lint = ValidationSettings(profile: .voipLint)

    @Test("Priority 5 is accepted by apple and refused by voip-lint with its explanation", arguments: AuthMode.allCases)
    func priorityFive(mode: AuthMode) {
        let request = Fixtures.voipPush().with("apns-priority", "5")
        #expect(validate(request, mode: mode).reason == nil)
        let linted = validate(request, mode: mode, settings: Self.lint)
        #expect(linted.reason == .badPriority)
        #expect(linted.rejection?.lint == .priorityNotImmediate)
        #expect(linted.rejection?.explanation.contains("ring now") == true)
    }

    @Test("A non-zero expiration is accepted by apple and refused by voip-lint", arguments: AuthMode.allCases)
    func nonZeroExpiration(mode: AuthMode) {
        let request = Fixtures.voipPush().with("apns-expiration", "1900000000")
        #expect(validate(request, mode: mode).reason == nil)
        let linted = validate(request, mode: mode, settings: Self.lint)
        #expect(linted.reason == .badExpirationDate)
        #expect(linted.rejection?.lint == .nonZeroExpiration)
    }

    @Test(
        "A future expiration refused by voip-lint keeps BadExpirationDate on the wire but names its lint rule, not a bad date",
        arguments: AuthMode.allCases)
    func futureExpirationNamesTheRule(mode: AuthMode) throws {
        let request = Fixtures.voipPush().with("apns-expiration", "1900000000")
        let rejection = try #require(validate(request, mode: mode, settings: Self.lint).rejection)
        #expect(rejection.reason == .badExpirationDate)
        #expect(rejection.responseBody == #"{"reason":"BadExpirationDate"}"#)
        let explanation = rejection.explanation
        #expect(explanation.hasPrefix("voip-lint/expiration-not-zero: "), "\(explanation)")
        #expect(!explanation.contains(Reason.badExpirationDate.explanation), "\(explanation)")
        #expect(!explanation.lowercased().contains("bad expiration date"), "\(explanation)")
        #expect(!explanation.lowercased().contains("not a unix time"), "\(explanation)")
        #expect(explanation.contains("ghost call") && explanation.contains("[PK-VOIP]"), "\(explanation)")
    }

    @Test("Every lint rule has a voip-lint/ name, read back from its name, its short name or an older short name")
    func ruleNames() {
        for rule in LintRule.allCases {
            #expect(rule.name == "voip-lint/" + rule.rawValue)
            #expect(LintRule(name: rule.name) == rule && LintRule(name: rule.rawValue) == rule)
            #expect(rule.whatToDo != rule.reason.whatToDo && rule.why != rule.explanation)
        }
        #expect(LintRule.nonZeroExpiration.name == "voip-lint/expiration-not-zero")
        #expect(LintRule(name: "non-zero-expiration") == .nonZeroExpiration)
        #expect(LintRule(name: "voip-lint/bogus") == nil)
    }

    @Test(
        "A .voip topic without a push type is accepted by apple and refused by voip-lint", arguments: AuthMode.allCases)
    func missingPushType(mode: AuthMode) {
        let request = Fixtures.voipPush().with("apns-push-type", nil)
        #expect(validate(request, mode: mode).reason == nil)
        #expect(validate(request, mode: mode, settings: Self.lint).rejection?.lint == .pushTypeNotVoip)
    }

    @Test("A VoIP push to the bare bundle id names the lint rule under voip-lint", arguments: AuthMode.allCases)
    func topicWithoutVoip(mode: AuthMode) {
        let request = Fixtures.voipPush().with("apns-topic", "com.ringside.testapp")
        let linted = validate(request, mode: mode, settings: Self.lint)
        #expect(linted.reason == .topicDisallowed)
        #expect(linted.rejection?.lint == .topicWithoutVoipSuffix)
        #expect(validate(request, mode: mode).rejection?.lint == nil)
    }

    @Test("Every lint rule has its own explanation")
    func explanationsDiffer() {
        let texts = Set(LintRule.allCases.map(\.explanation))
        #expect(texts.count == LintRule.allCases.count)
        for rule in LintRule.allCases { #expect(rule.explanation != rule.reason.explanation) }
    }
}
