import APNs
import Foundation
import MockAPNs
import Provider
import TestSupport
import Testing

/// The reference provider against the mock and its world — in memory, TLS included (`MemoryMock`) —
/// and each naive profile's mistake.
@Suite struct ProviderProfileTests {
    static let bundle = "com.ringside.testapp"

    /// The mock in memory over TLS, as a provider meets APNs.
    func mock() throws -> MemoryMock { try MemoryMock { $0.plaintext = false } }

    func provider(_ world: MemoryMock, _ profile: ProviderProfile, certificate: Bool = false) throws
        -> ReferenceProvider
    {
        let configuration =
            certificate
            ? world.clientConfiguration(
                authentication: .certificate(
                    certificateFile: Paths.certs + "/client-voip.pem", keyFile: Paths.certs + "/client-voip.key"),
                timeout: 3)
            : world.clientConfiguration(timeout: 3)
        let provider = try ReferenceProvider(configuration: configuration, bundleId: Self.bundle, profile: profile)
        provider.sleep = { _ in }  // delays are recorded in `actions`, not waited for
        return provider
    }

    /// The requests the mock saw, as (token, a header, status, reason).
    func seen(_ world: MemoryMock, header: String) -> [(String?, String?, Int, String?)] {
        world.events.pushes.map { record in
            let value: String? =
                switch header {
                case "apns-priority": record.request.priority
                case "apns-expiration": record.request.expiration
                default: record.request.topic
                }
            return (record.request.deviceToken, value, record.status, record.rejection?.reason.wire)
        }
    }

    @Test(
        "Reference: rings, forgets a token after its 410, backs off on 503, refreshes the JWT once on ExpiredProviderToken"
    )
    func reference() throws {
        let world = try mock()
        let phone = try world.phone()
        let provider = try provider(world, .reference)
        provider.register(user: "alice", token: phone.voip)
        let rang = try provider.placeCall(to: "alice", caller: "bob")
        #expect(rang.map(\.status) == [200])
        #expect(try world.outcome(apnsId: try #require(rang[0].apnsId))["outcome"] as? String == "rang")

        try world.control("POST", "/faults", ["reason": "ServiceUnavailable", "count": 2])
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [200])
        let delays = provider.actions.compactMap {
            if case .retried(_, let after) = $0 { return after } else { return nil }
        }
        #expect(delays.count == 2)
        #expect(delays[1] > delays[0])

        try world.control("POST", "/faults", ["reason": "ExpiredProviderToken", "count": 1])
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [200])
        #expect(provider.actions.contains(.refreshedJWT))

        try world.control("POST", "/phones/\(phone.id)/apps/\(Self.bundle)/uninstall")
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [410])
        #expect(provider.store.tokens(for: "alice").isEmpty)
        #expect(try provider.placeCall(to: "alice", caller: "bob").isEmpty, "a forgotten token is never pushed again")
    }

    @Test("forgets-voip-suffix: the bare bundle id as topic, TopicDisallowed, the phone stays silent")
    func forgetsSuffix() throws {
        let world = try mock()
        let provider = try provider(world, .forgetsVoipSuffix)
        provider.register(user: "alice", token: try world.phone().voip)
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.reason) == [.topicDisallowed])
        #expect(seen(world, header: "apns-topic").map(\.1) == [Self.bundle])
    }

    @Test(
        "priority-5 and non-zero-expiration send what voip-lint refuses; the reference does not",
        arguments: [
            ProviderProfile.priorityFive, .nonZeroExpiration, .reference,
        ])
    func lintMistakes(profile: ProviderProfile) throws {
        let world = try mock()
        let provider = try provider(world, profile)
        provider.register(user: "alice", token: try world.phone().voip)
        try provider.placeCall(to: "alice", caller: "bob")
        let priority = seen(world, header: "apns-priority").first?.1
        let expiration = seen(world, header: "apns-expiration").first?.1
        #expect((priority == "5") == (profile == .priorityFive))
        #expect((expiration != "0") == (profile == .nonZeroExpiration))
    }

    @Test("new-jwt-per-request: a second JWT on the connection gets 429 TooManyProviderTokenUpdates")
    func newTokenPerRequest() throws {
        let world = try mock()
        let provider = try provider(world, .newTokenPerRequest)
        provider.register(user: "alice", token: try world.phone().voip)
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [200])
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.reason) == [.tooManyProviderTokenUpdates])
        #expect(provider.signedTokens >= 2, "a JWT per request")
        #expect(
            provider.actions.contains(
                .sent(token: provider.store.entries[0].token, status: 429, reason: .tooManyProviderTokenUpdates)))
    }

    @Test(
        "keeps-pushing-after-410 pushes a dead token again; prunes-only-on-410 keeps a BadDeviceToken token",
        arguments: [
            ProviderProfile.keepsPushingAfter410, .prunesOnlyOn410, .reference,
        ])
    func deadTokens(profile: ProviderProfile) throws {
        let world = try mock()
        let phone = try world.phone()
        let provider = try provider(world, profile)
        let bogus = String(repeating: "0f", count: 32)
        provider.register(user: "alice", token: phone.voip)
        provider.register(user: "alice", token: bogus)
        try world.control("POST", "/phones/\(phone.id)/apps/\(Self.bundle)/uninstall")
        try provider.placeCall(to: "alice", caller: "bob")
        try provider.placeCall(to: "alice", caller: "bob")
        let requests = seen(world, header: "apns-topic")
        let toDead = requests.filter { $0.0 == phone.voip }.count
        let toBogus = requests.filter { $0.0 == bogus }.count
        #expect(toDead == (profile == .keepsPushingAfter410 ? 2 : 1))
        #expect(toBogus == (profile == .prunesOnlyOn410 ? 2 : 1))
        #expect(requests.first { $0.0 == bogus }?.3 == "BadDeviceToken")
    }

    @Test("Reference: after a GOAWAY, the streams above its last-stream-id are sent again on a new connection")
    func goAway() throws {
        let world = try mock()
        let provider = try provider(world, .reference, certificate: true)
        for _ in 0..<4 { provider.register(user: "alice", token: try world.phone().voip) }
        try world.control("POST", "/faults", ["action": "goaway", "afterAccepted": 1, "reason": "Shutdown"])
        let answers = try provider.placeCall(to: "alice", caller: "bob")
        #expect(
            answers.map(\.status) == [200, 200, 200, 200],
            "\(answers.map { $0.transportError ?? "-" }) \(provider.actions) \(world.events.all)")
        #expect(Set(world.events.pushes.map(\.connection)).count >= 2, "a new connection after the GOAWAY")
    }

    @Test(
        "ignores-goaway: the cached connection is never replaced; after the GOAWAY no push reaches APNs, no phone rings",
        arguments: [true, false])
    func ignoresGoAway(certificate: Bool) throws {
        let world = try mock()
        let provider = try provider(world, .ignoresGoAway, certificate: certificate)
        for _ in 0..<4 { provider.register(user: "alice", token: try world.phone().voip) }
        try world.control("POST", "/faults", ["action": "goaway", "afterAccepted": 1, "reason": "Shutdown"])
        let first = try provider.placeCall(to: "alice", caller: "bob")
        #expect(first.map(\.status) == [200, 0, 0, 0], "\(first.map { $0.transportError ?? "" })")
        let seenAfterFirstCall = world.events.pushes.count
        let later = try provider.placeCall(to: "alice", caller: "bob")
        #expect(later.map(\.status) == [0, 0, 0, 0])
        // Refused by nghttp2 on the connection that got GOAWAY, or not sent once APNs closed it: the
        // provider never opens another, so nothing more reaches APNs.
        #expect(later.allSatisfy { $0.transportError != nil })
        #expect(world.events.pushes.count == seenAfterFirstCall)
        #expect(world.events.pushes.filter { $0.status == 200 }.count == 1)
        #expect(Set(world.events.pushes.map(\.connection)).count == 1, "never a new connection")
        #expect(provider.actions.filter { if case .gaveUp = $0 { true } else { false } }.count == 7)
    }

    @Test("ignores-goaway's own TLS: a server certificate from an untrusted CA fails the handshake, and says why")
    func cachedConnectionVerifiesTheServer() throws {
        let world = try mock()
        let provider = try provider(world, .ignoresGoAway)
        provider.register(user: "alice", token: try world.phone().voip)
        try world.control("POST", "/faults", ["action": "untrusted-server-certificate"])
        let answers = try provider.placeCall(to: "alice", caller: "bob")
        #expect(answers.map(\.status) == [0])
        #expect(answers[0].transportError?.contains("certificate verify failed") == true, "\(answers)")
        #expect(world.events.pushes.isEmpty)
    }

    @Test("no-backoff-on-503 retries at once, again and again; the reference waits longer each time")
    func noBackoff() throws {
        let world = try mock()
        let provider = try provider(world, .noBackoffOn503)
        provider.register(user: "alice", token: try world.phone().voip)
        try world.control("POST", "/faults", ["reason": "ServiceUnavailable", "count": 6])
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [200])
        let delays = provider.actions.compactMap {
            if case .retried(_, let after) = $0 { return after } else { return nil }
        }
        #expect(delays == Array(repeating: 0, count: 6))
    }

    @Test("uses-regular-token: the regular token with the .voip topic, DeviceTokenNotForTopic")
    func regularToken() throws {
        let world = try mock()
        let phone = try world.phone()
        let provider = try provider(world, .usesRegularToken)
        provider.register(user: "alice", token: phone.alert, kind: .alert)
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.reason) == [.deviceTokenNotForTopic])
    }

    @Test(
        "cancels-with-push and registers-twice: a second push for the same call, the phone reports a duplicate",
        arguments: [
            ProviderProfile.cancelsWithPush, .registersTwice,
        ])
    func duplicates(profile: ProviderProfile) throws {
        let world = try mock()
        let phone = try world.phone()
        let provider = try provider(world, profile)
        provider.register(user: "alice", token: phone.voip)
        provider.register(user: "alice", token: phone.voip)
        let answers = try provider.placeCall(to: "alice", callUUID: "call-1", caller: "bob")
        #expect(answers.map(\.status) == [200, 200])
        let outcomes = try answers.map { try world.outcome(apnsId: try #require($0.apnsId))["outcome"] as? String }
        #expect(outcomes.sorted { ($0 ?? "") < ($1 ?? "") } == ["duplicate", "rang"])
    }
}
