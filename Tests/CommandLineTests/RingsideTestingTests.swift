import Foundation
import RingsideTesting
import TestSupport
import Testing

/// `RingsideTesting`'s calls do what the control API's do: the contract reaches a real client, phones
/// get tokens that ring, faults answer, the clock moves, and a wait for an outcome that never comes
/// throws with what APNs answered.
@Suite struct RingsideTestingTests {
    /// One VoIP push with curl, as a provider under test would send it.
    static func push(_ mock: RingsideMock, token: String, expiration: Int = 0, call: String = "c1") throws -> Int {
        let result = try run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2", "--cacert", mock.contract.caFile, "-H",
                "authorization: bearer \(Paths.jwt())", "-H", "apns-expiration: \(expiration)", "-H",
                "apns-topic: \(mock.contract.voipTopic)", "-H",
                "apns-push-type: voip", "-H", "x-trace: 42", "-d", #"{"aps":{},"callUUID":"\#(call)"}"#,
                "\(mock.contract.url)/3/device/\(token)",
            ])
        return Int(result.stdout) ?? 0
    }

    @Test("A phone's token rings; an uninstalled app's token gets 410; the exchange keeps its headers")
    func phonesAndOutcomes() async throws {
        let mock = try await RingsideMock.start()
        #expect(mock.contract.environment["APNS_URL"] == mock.contract.url)
        #expect(mock.contract.voipTopic == "com.ringside.testapp.voip")
        #expect(mock.contract.environment["APNS_VOIP_TOPIC"] == mock.contract.voipTopic)
        #expect(FileManager.default.fileExists(atPath: mock.contract.keyFile))
        let alice = try await mock.addPhone("alice")
        #expect(try Self.push(mock, token: alice.voipToken) == 200)
        let outcome = try await mock.outcome(of: alice, callUUID: "c1")
        #expect(outcome.kind == .rang, "\(outcome.story)")
        try await mock.apply(.uninstall, to: alice)
        #expect(try Self.push(mock, token: alice.voipToken) == 410)
        let exchanges = await mock.exchanges
        #expect(exchanges.map(\.status) == [200, 410])
        #expect(exchanges.last?.reason == .unregistered)
        #expect(exchanges.first?.header("X-Trace") == "42")
        #expect(await mock.transcript.contains { $0.contains("\"status\":410") })
        await mock.stop()
    }

    /// The mock asks the world once per push (`SharedWorld.admit`), before the push's transcript line
    /// is written; an outcome final at once (a retired token still answering 200), or at once after
    /// a delivery latency of 0, must still come after that line. Telling outcomes as they finish, not
    /// after `told`, puts some before their push.
    @Test("An outcome is written after its push's line, even when the world ends it at once")
    func outcomeAfterItsPush() async throws {
        var options = RingsideMock.Options()
        options.world.deliveryLatency = 0
        options.world.unregisterDelay = 3600
        options.world.throttle = nil
        let mock = try await RingsideMock.start(options)
        let alice = try await mock.addPhone("alice")
        let bob = try await mock.addPhone("bob")
        try await mock.apply(.uninstall, to: bob)
        for index in 0..<20 {
            #expect(try Self.push(mock, token: alice.voipToken, call: "live-\(index)") == 200)
            #expect(try Self.push(mock, token: bob.voipToken, call: "dead-\(index)") == 200)
        }
        _ = try await mock.outcome(of: alice, callUUID: "live-19")
        let lines = await mock.transcript
        // Each outcome names its push by apns-id; the push's line carries the same id.
        let outcomes = lines.enumerated().filter { $0.element.contains(#""event":"outcome""#) }
        #expect(outcomes.count == 40, "\(outcomes.count) outcomes")
        for (at, line) in outcomes {
            guard let range = line.range(of: #""apnsId":""#) else { continue }
            let id = String(line[range.upperBound...].prefix(36))
            let push = lines.firstIndex { $0.contains(#""event":"push""#) && $0.contains(id) }
            #expect(push != nil && push! < at, "apns-id \(id): push line \(push ?? -1), outcome line \(at)")
        }
        await mock.stop()
    }

    @Test("Faults answer as armed; the world clock expires a stored push; a wait for no push throws what APNs said")
    func faultsClockAndWaits() async throws {
        let mock = try await RingsideMock.start()
        let alice = try await mock.addPhone("alice")
        try await mock.arm(.answer(.serviceUnavailable), count: 1, phone: alice)
        #expect(try Self.push(mock, token: alice.voipToken) == 503)
        await #expect(throws: RingsideError.self) { try await mock.arm(.drop, count: 0) }
        // Stored for an hour while alice is offline: it rings (late: the caller gave up) when she is back a minute later, and
        // not when she is back two hours later.
        for (offline, ends) in [(60.0, RingOutcome.Kind.rangLate), (2 * 3600, .notDelivered)] {
            await mock.setOnline(alice, false)
            let inAnHour = Int(Date().timeIntervalSince1970) + 3600
            #expect(try Self.push(mock, token: alice.voipToken, expiration: inAnHour) == 200)
            try await mock.advance(by: offline)
            await mock.setOnline(alice, true)
            let outcome = try await mock.outcome(of: alice)
            #expect(outcome.kind == ends, "\(outcome.story)")
        }
        await #expect(throws: RingsideError.self) { try await mock.advance(by: -1) }

        let bob = try await mock.addPhone("bob")
        try await mock.arm(.answer(.serviceUnavailable), count: 1, phone: bob)
        #expect(try Self.push(mock, token: bob.voipToken) == 503)
        do {
            _ = try await mock.outcome(of: bob, timeout: 0.2)
            Issue.record("an outcome for a push APNs refused")
        } catch let error as RingsideError {
            #expect(error.description.contains("503 ServiceUnavailable"), "\(error)")
        }
        await mock.stop()
    }

    @Test("outcome(of:) waits for a newer push each time; a fault or event on an uninstalled app throws")
    func noStaleAnswers() async throws {
        let mock = try await RingsideMock.start()
        let alice = try await mock.addPhone("alice")
        #expect(try Self.push(mock, token: alice.voipToken) == 200)
        #expect(try await mock.outcome(of: alice).kind == .rang)
        // No second push: the first one's outcome is not answered again.
        await #expect(throws: RingsideError.self) { try await mock.outcome(of: alice, timeout: 0.3) }
        await #expect(throws: RingsideError.self) { try await mock.outcome(of: alice, timeout: .nan) }
        await mock.change(alice, .doNotDisturb(true))
        #expect(try Self.push(mock, token: alice.voipToken, call: "c2") == 200)
        #expect(try await mock.outcome(of: alice).reason == "filteredByDoNotDisturb")
        try await mock.apply(.uninstall, to: alice)
        await #expect(throws: RingsideError.self) { try await mock.apply(.reinstall, to: alice) }
        await #expect(throws: RingsideError.self) { try await mock.arm(.drop, phone: alice) }
        await mock.stop()
    }
}
