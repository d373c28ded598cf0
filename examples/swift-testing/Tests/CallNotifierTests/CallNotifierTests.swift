import CallNotifier
import Foundation
import RingsideTesting
import Testing

/// CallNotifier against Ringside's fake APNs and virtual phones, in-process: does the phone ring,
/// is a dead token forgotten, is a 503 retried? Each test also runs a broken notifier and expects
/// the check to fail (`withKnownIssue`), so a test that cannot fail would show.
@Suite struct CallNotifierTests {
    static func notifier(_ mock: RingsideMock, retries: Int = 3) -> CallNotifier {
        let contract = mock.contract
        var settings = CallNotifier.Settings(
            url: contract.url, caFile: contract.caFile, topic: contract.topic, keyFile: contract.keyFile,
            keyId: contract.keyId, teamId: contract.teamId)
        settings.retries = retries
        settings.backOff = 0.1
        return CallNotifier(settings: settings)
    }

    @Test("A call rings alice's phone")
    func callRings() async throws {
        let mock = try await RingsideMock.start()
        let alice = try await mock.addPhone("alice")
        let notifier = Self.notifier(mock)
        await notifier.register(user: "alice", token: alice.voipToken)
        let call = UUID()
        let deliveries = try await notifier.placeCall(to: "alice", callId: call, caller: "bob")
        #expect(deliveries.map(\.status) == [200])
        let outcome = try await mock.outcome(of: alice, callUUID: call.uuidString.lowercased())
        #expect(outcome.kind == .rang, "\(outcome.story)")

        // An offline phone does not ring: the same check fails.
        let bob = try await mock.addPhone("bob", online: false)
        await notifier.register(user: "bob", token: bob.voipToken)
        _ = try await notifier.placeCall(to: "bob", callId: UUID(), caller: "alice")
        await withKnownIssue("bob is offline and APNs does not store a push with expiration 0") {
            let missed = try await mock.outcome(of: bob)
            #expect(missed.kind == .rang)
        }
        await mock.stop()
    }

    @Test("After 410 Unregistered the token is forgotten and never pushed again")
    func unregisteredForgotten() async throws {
        let mock = try await RingsideMock.start()
        let alice = try await mock.addPhone("alice")
        let notifier = Self.notifier(mock)
        await notifier.register(user: "alice", token: alice.voipToken)
        try await mock.apply(.uninstall, to: alice)
        let first = try await notifier.placeCall(to: "alice", callId: UUID(), caller: "bob")
        #expect(first.map(\.status) == [410])
        #expect(first.first?.reason == "Unregistered")
        #expect(await notifier.tokens(of: "alice").isEmpty)
        _ = try await notifier.placeCall(to: "alice", callId: UUID(), caller: "bob")
        let pushes = await mock.exchanges.filter { $0.deviceToken == alice.voipToken }
        #expect(pushes.count == 1, "the dead token was pushed \(pushes.count) times")

        // A backend that registers the dead token again pushes it again: the same check fails.
        await notifier.register(user: "alice", token: alice.voipToken)
        _ = try await notifier.placeCall(to: "alice", callId: UUID(), caller: "bob")
        await withKnownIssue("the dead token registered again is pushed again") {
            let again = await mock.exchanges.filter { $0.deviceToken == alice.voipToken }
            #expect(again.count == 1)
        }
        await mock.stop()
    }

    @Test("A 503 is retried with back-off and the call still rings")
    func serviceUnavailableRetried() async throws {
        let mock = try await RingsideMock.start()
        let alice = try await mock.addPhone("alice")
        try await mock.arm(.answer(.serviceUnavailable), count: 2, phone: alice)
        let notifier = Self.notifier(mock)
        await notifier.register(user: "alice", token: alice.voipToken)
        let deliveries = try await notifier.placeCall(to: "alice", callId: UUID(), caller: "bob")
        #expect(deliveries.first?.attempts == 3)
        let answers = await mock.exchanges.map(\.status)
        #expect(answers == [503, 503, 200])
        let times = await mock.exchanges.map(\.at)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 0.1 }, "retried without back-off: \(times)")
        #expect(try await mock.outcome(of: alice).kind == .rang)

        // A notifier that does not retry: alice's phone never rings.
        let carol = try await mock.addPhone("carol")
        try await mock.arm(.answer(.serviceUnavailable), count: 1, phone: carol)
        let hasty = Self.notifier(mock, retries: 0)
        await hasty.register(user: "carol", token: carol.voipToken)
        _ = try await hasty.placeCall(to: "carol", callId: UUID(), caller: "bob")
        await withKnownIssue("a notifier that gives up on 503 never rings carol") {
            let outcome = try await mock.outcome(of: carol, timeout: 1)
            #expect(outcome.kind == .rang)
        }
        await mock.stop()
    }
}
