import APNs
import Testing

/// The one vocabulary of reasons ([RESP]; docs/apns-facts.md §3.3).
@Suite struct VocabularyTests {
    @Test("Statuses follow Apple's table")
    func statuses() {
        let expected: [Int: Set<Reason>] = [
            400: [
                .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
                .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
                .missingTopic, .payloadEmpty, .topicDisallowed,
            ],
            403: [
                .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
                .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken,
            ],
            404: [.badPath], 405: [.methodNotAllowed], 410: [.expiredToken, .unregistered], 413: [.payloadTooLarge],
            429: [.tooManyProviderTokenUpdates, .tooManyRequests], 500: [.internalServerError],
            503: [.serviceUnavailable, .shutdown],
        ]
        #expect(expected.values.reduce(0) { $0 + $1.count } == Reason.allCases.count)
        for (status, reasons) in expected {
            for reason in reasons { #expect(reason.status == status, "\(reason)") }
        }
    }

    @Test("Every reason has an explanation, a what-to-do and a source", arguments: Reason.allCases)
    func everyReasonExplained(reason: Reason) {
        #expect(reason.explanation.count > 20)
        #expect(reason.whatToDo.count > 10)
        #expect(!reason.source.isEmpty)
        #expect(Reason(wire: reason.wire.lowercased()) == reason)
    }

    @Test("Apple's never-retry list")
    func neverRetry() {
        let permanent = Set(Reason.allCases.filter(\.isPermanentForToken))
        #expect(
            permanent == [
                .badDeviceToken, .deviceTokenNotForTopic, .forbidden, .expiredToken, .unregistered, .payloadTooLarge,
            ])
    }
}

/// JWS encodings (RFC 7515) and ES256 signature formats.
@Suite struct CryptoTests {
    @Test("base64url round-trips every length")
    func base64url() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.decode("a*b") == nil)
    }

    @Test("A raw signature and its DER form verify alike; a flipped bit does not")
    func signatureFormats() throws {
        let key = Fixtures.signingKey("RINGKEY001")
        let message = Array("header.claims".utf8)
        let raw = try key.sign(message)
        let der = try key.sign(message, der: true)
        #expect(raw.count == 64)
        #expect(der.first == 0x30)
        #expect(key.verify(signature: raw, message: message))
        #expect(key.verify(signature: der, message: message))
        var flipped = raw
        flipped[10] ^= 1
        #expect(!key.verify(signature: flipped, message: message))
        #expect(!Fixtures.signingKey("RINGKEY002").verify(signature: raw, message: message))
    }

    @Test("A redacted JWT keeps header and claims, not the signature")
    func redaction() {
        let jwt = "bearer \(Fixtures.jwt())"
        let redacted = ProviderToken.redacted(jwt)
        #expect(redacted.hasSuffix(".<signature redacted>"))
        #expect(redacted.hasPrefix(String(jwt.prefix(60))))
        #expect(!redacted.contains(String(jwt.suffix(20))))
    }

    @Test("Token syntax: hexadecimal, even length, either case")
    func tokenSyntax() {
        #expect(DeviceTokenSyntax.isWellFormed("aBcD"))
        #expect(!DeviceTokenSyntax.isWellFormed("abc"))
        #expect(!DeviceTokenSyntax.isWellFormed("ag"))
        #expect(!DeviceTokenSyntax.isWellFormed(""))
        #expect(!DeviceTokenSyntax.isWellFormed(String(repeating: "a", count: 1026)))
    }

    @Test("Push types are read from topic suffixes without confusing .voip and .voip-ptt")
    func topicSuffixes() {
        #expect(PushType.implied(byTopic: "a.b.voip") == .voip)
        #expect(PushType.implied(byTopic: "a.b.voip-ptt") == .pushtotalk)
        #expect(PushType.implied(byTopic: "a.b.push-type.liveactivity") == .liveactivity)
        #expect(PushType.implied(byTopic: "a.b.liveactivity") == nil)
        #expect(PushType.implied(byTopic: "a.b") == nil)
        #expect(PushType.bundleId(ofTopic: "a.b.pushkit.fileprovider") == "a.b")
    }

    /// `bundleId(ofTopic:)` tries `.voip` before the others: right only while no other suffix ends
    /// with `.voip`. Checked against the definition (the longest known suffix goes) on every pair.
    @Test("A topic's bundle id is the topic less its longest known suffix, .voip tried first or not")
    func bundleIdOfTopic() {
        #expect(PushType.knownSuffixes.filter { $0.hasSuffix(".voip") } == [".voip"])
        var topics = ["a.b", "", ".voip", "a.b.voipx", "a.b.voip."]
        for first in PushType.knownSuffixes {
            topics += ["a.b" + first, first]
            for second in PushType.knownSuffixes { topics.append("a.b" + first + second) }
        }
        for topic in topics {
            let longest = PushType.knownSuffixes.filter { topic.hasSuffix($0) }.max { $0.count < $1.count }
            let expected = String(topic.dropLast(longest?.count ?? 0))
            #expect(PushType.bundleId(ofTopic: topic) == expected, "topic <\(topic)>")
        }
    }
}
