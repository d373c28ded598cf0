import APNs
import Foundation
import MockAPNs
import Provider
import TestSupport
import Testing

/// The built-in provider's connection policy (`ConnectionPolicy`): one test per row of its table,
/// then each row against the mock — in memory, TLS included (`MemoryMock`) — beside the naive
/// profile that gets it wrong.
@Suite struct ConnectionPolicyTests {
    static let bundle = "com.ringside.testapp"

    @Test(
        "Transient GOAWAYs and broken connections reconnect; permanent GOAWAYs and refused certificates stop",
        arguments: [
            (TransportFailure.goAway(.shutdown), ConnectionDecision.reconnect),
            (.goAway(.idleTimeout), .reconnect), (.goAway(.internalServerError), .reconnect),
            (.goAway(.serviceUnavailable), .reconnect), (.goAway(nil), .reconnect),
            (.connectionBroke("APNs closed the connection"), .reconnect),
            (.handshakeRefused("APNs closed the connection during the TLS handshake"), .reconnect),
            (.streamRefused, .sendAgainAtOnce),
        ])
    func table(failure: TransportFailure, decision: ConnectionDecision) {
        #expect(ConnectionPolicy.decide(failure) == decision)
    }

    @Test(
        "Permanent: GOAWAY BadCertificate, BadCertificateEnvironment, Forbidden; a certificate the handshake refused",
        arguments: [
            TransportFailure.goAway(.badCertificate), .goAway(.badCertificateEnvironment), .goAway(.forbidden),
            .handshakeRefused("sslv3 alert certificate expired"), .handshakeRefused("certificate verify failed"),
        ])
    func permanent(failure: TransportFailure) {
        guard case .stop(let why) = ConnectionPolicy.decide(failure) else {
            Issue.record("\(failure) is not permanent")
            return
        }
        #expect(!why.isEmpty)
    }

    @Test("A connection is retired after two 5xx answers in a row, not after one")
    func sickConnectionRow() {
        #expect(ConnectionPolicy.decide(serverErrorsInARow: 1) == nil)
        #expect(ConnectionPolicy.decide(serverErrorsInARow: 2) == .retire)
    }

    /// The mock in memory over TLS, as a provider meets APNs.
    func mock() throws -> MemoryMock { try MemoryMock { $0.plaintext = false } }

    func provider(
        _ world: MemoryMock, _ profile: ProviderProfile = .reference, certificate: String? = nil, timeout: Double = 3
    ) throws -> ReferenceProvider {
        let provider = try ReferenceProvider(
            configuration: certificate.map {
                world.clientConfiguration(
                    authentication: .certificate(
                        certificateFile: Paths.certs + "/client-\($0).pem", keyFile: Paths.certs + "/client-\($0).key"),
                    timeout: timeout)
            } ?? world.clientConfiguration(timeout: timeout),
            bundleId: Self.bundle, profile: profile)
        provider.sleep = { _ in }
        return provider
    }

    func connections(_ world: MemoryMock) -> Int {
        world.events.all.filter { if case .connectionOpened = $0 { true } else { false } }.count
            + world.events.refusals.count
    }

    @Test(
        "GOAWAY BadCertificateEnvironment: the reference stops after one connection and says why once; reconnect-storm opens eight",
        arguments: [ProviderProfile.reference, .reconnectStorm])
    func permanentGoAway(profile: ProviderProfile) throws {
        let world = try mock()
        let provider = try provider(world, profile, certificate: "production-only")
        provider.register(user: "alice", token: try world.phone().voip)
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [0])
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [0])
        if profile == .reference {
            #expect(connections(world) == 1)
            #expect(provider.stoppedBecause?.contains("BadCertificateEnvironment") == true, "\(provider.actions)")
            #expect(provider.actions.filter { if case .stopped = $0 { true } else { false } }.count == 1)
        } else {
            #expect(connections(world) >= 8)
        }
    }

    @Test(
        "A refused handshake (expired certificate): the reference tries once and stops; reconnect-storm tries again and again",
        arguments: [ProviderProfile.reference, .reconnectStorm])
    func refusedHandshake(profile: ProviderProfile) throws {
        let world = try mock()
        let provider = try provider(world, profile, certificate: "expired")
        provider.register(user: "alice", token: try world.phone().voip)
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [0])
        _ = try provider.placeCall(to: "alice", caller: "bob")
        let refusals = world.events.refusals
        #expect(refusals.allSatisfy { $0.contains("certificate has expired") }, "\(refusals)")
        if profile == .reference {
            #expect(refusals.count == 1, "\(refusals)")
            #expect(provider.stoppedBecause?.contains("certificate") == true, "\(provider.actions)")
        } else {
            #expect(refusals.count >= 8, "\(refusals)")
        }
    }

    @Test(
        "A stale connection that answers 500 is retired and the push sent on a new one; sticks-to-sick-connection gives up",
        arguments: [ProviderProfile.reference, .sticksToSickConnection])
    func sickConnection(profile: ProviderProfile) throws {
        let world = try mock()
        let provider = try provider(world, profile)
        provider.register(user: "alice", token: try world.phone().voip)
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [200])
        try world.control("POST", "/faults", ["action": "stale-connections", "idleSeconds": 0.2])
        world.passes(0.4)
        let answers = try provider.placeCall(to: "alice", caller: "bob")
        let statuses = world.events.pushes.map(\.status)
        if profile == .reference {
            #expect(answers.map(\.status) == [200], "\(statuses)")
            #expect(provider.actions.contains(.retiredConnection(number: 1)))
            #expect(Set(world.events.pushes.map(\.connection)).count == 2)
        } else {
            #expect(answers.map(\.status) == [500], "\(statuses)")
            #expect(Set(world.events.pushes.map(\.connection)).count == 1)
        }
    }

    @Test(
        "A server certificate that does not lead to the CA: the reference sends nothing; skips-server-verification sends to it",
        arguments: [ProviderProfile.reference, .skipsServerVerification])
    func serverVerification(profile: ProviderProfile) throws {
        let world = try mock()
        let provider = try provider(world, profile)
        provider.register(user: "alice", token: try world.phone().voip)
        try world.control("POST", "/faults", ["action": "untrusted-server-certificate"])
        let answers = try provider.placeCall(to: "alice", caller: "bob")
        if profile == .reference {
            #expect(answers.map(\.status) == [0])
            #expect(answers.first?.transportError?.contains("certificate verify failed") == true, "\(answers)")
            #expect(world.events.pushes.isEmpty)
            #expect(provider.stoppedBecause != nil)
        } else {
            #expect(answers.map(\.status) == [200])
            #expect(world.events.pushes.count == 1)
        }
    }

    @Test(
        "Five pushes on a new token connection: the reference starts at one stream and loses none; drops-refused-streams sends them at once and loses four",
        arguments: [ProviderProfile.reference, .dropsRefusedStreams])
    func refusedStreams(profile: ProviderProfile) throws {
        let world = try mock()
        let provider = try provider(world, profile)
        for _ in 0..<5 { provider.register(user: "team", token: try world.phone().voip) }
        let answers = try provider.placeCall(to: "team", caller: "bob")
        let refused = world.events.all.filter { if case .streamRefused = $0 { true } else { false } }
        if profile == .reference {
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200])
            #expect(refused.isEmpty)
        } else {
            #expect(answers.map(\.status) == [200, 0, 0, 0, 0])
            #expect(answers.dropFirst().allSatisfy { $0.failure == .streamRefused })
            #expect(refused.count == 4)
            if case .streamRefused(_, _, let why, _) = refused.first {
                #expect(why.contains("until a request carries a valid JWT"))
            }
        }
    }

    @Test(
        "An unanswered push is sent again on a new connection with the same apns-id and call UUID: recognisably the same call"
    )
    func ambiguousResend() throws {
        let world = try mock()
        let provider = try provider(world, timeout: 1)
        provider.register(user: "alice", token: try world.phone().voip)
        try world.control("POST", "/faults", ["action": "drop", "count": 1])
        #expect(try provider.placeCall(to: "alice", caller: "bob").map(\.status) == [200])
        let pushes = world.events.pushes
        #expect(pushes.count == 2)
        #expect(Set(pushes.map(\.connection)).count == 2, "sent again on a new connection")
        #expect(Set(pushes.compactMap(\.request.apnsId)).count == 1, "one apns-id: \(pushes.map(\.request.apnsId))")
        #expect(Set(pushes.map { String(decoding: $0.request.body, as: UTF8.self) }).count == 1, "one call UUID")
    }
}
