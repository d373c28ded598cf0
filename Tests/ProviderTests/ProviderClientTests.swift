import APNs
import Foundation
import HTTP2Server
import MockAPNs
import Provider
import TestSupport
import Testing

/// The reference provider's libcurl client against the mock on loopback (its nghttp2 client and its
/// pure policies are tested in ProviderUnitTests).
@Suite(.serialized) struct ProviderClientTests {
    func client(_ server: MockServer, certificate: Bool = false, streamsPerConnection: Int? = 900) throws -> APNsClient
    {
        let authentication: ClientConfiguration.Authentication =
            certificate
            ? .certificate(certificateFile: Paths.certs + "/client-voip.pem", keyFile: Paths.certs + "/client-voip.key")
            : .token(keyFile: Paths.certs + "/AuthKey_RINGKEY001.p8", keyId: "RINGKEY001", teamId: "RINGTEAM01")
        return try APNsClient(
            configuration: ClientConfiguration(url: server.url, caFile: Paths.ca, authentication: authentication),
            streamsPerConnection: streamsPerConnection)
    }

    func pushes(_ client: APNsClient, count: Int) throws -> [PushAnswer] {
        var ids = MessageIdGenerator(seed: 7)
        var answers: [PushAnswer] = []
        for batch in 0..<(count / 100) {
            let pushes = (0..<100).map { index in
                OutgoingPush.voip(
                    token: Paths.voipToken, bundleId: "com.ringside.testapp", callUUID: "call-\(batch)-\(index)",
                    caller: "alice", apnsId: ids.next())
            }
            answers += try client.send(pushes)
        }
        return answers
    }

    @Test("1,500 VoIP pushes over one connection with one JWT, all accepted, none sent twice")
    func manyPushes() throws {
        let server = try MockServer()
        // Kept past 900 streams (the default lets it go there, `connectionLetGoBeforeTheResetLimit`).
        let client = try client(server, streamsPerConnection: nil)
        let answers = try pushes(client, count: 1500)
        #expect(answers.count == 1500)
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.first { $0.status != 200 }.map { "\($0)" } ?? "")")
        #expect(answers.allSatisfy { $0.attempts == 1 })
        #expect(client.signedTokens == 1)
        let ended = server.events.all.compactMap { event -> String? in
            switch event {
            case .connectionClosed(let id, let why, _): "closed \(id): \(why)"
            case .streamRefused(let id, let stream, _, _): "refused \(id)/\(stream)"
            default: nil
            }
        }
        #expect(Set(server.events.pushes.map(\.connection)).count == 1, "\(ended.prefix(12))")
        #expect(client.connectionsOpened == 1)
        #expect(server.events.pushes.count == 1500)
    }

    @Test("Told to use 3 connections: 900 pushes over exactly 3, a thread each, answers in the order of the pushes")
    func severalConnections() throws {
        let server = try MockServer()
        let client = try APNsClient(
            configuration: ClientConfiguration(
                url: server.url, caFile: Paths.ca,
                authentication: .token(
                    keyFile: Paths.certs + "/AuthKey_RINGKEY001.p8", keyId: "RINGKEY001", teamId: "RINGTEAM01"),
                connections: 3))
        let pushes = OutgoingPush.voipBatch(900, seed: 11)
        let answers = try client.send(pushes)
        #expect(answers.allSatisfy { $0.status == 200 })
        // APNs echoes a well-formed apns-id: each answer belongs to the push at its index.
        let sentIds = pushes.map(\.sentApnsId)
        #expect(answers.map(\.apnsId) == sentIds)
        #expect(client.connectionsOpened == 3)
        #expect(Set(server.events.pushes.map(\.connection)).count == 3)
        #expect(client.signedTokens == 1)
    }

    @Test(
        "MAX_CONCURRENT_STREAMS 3: 300 pushes, 100 handed to libcurl at once, all delivered on one connection, none refused"
    )
    func respectsStreamLimit() throws {
        var limits = HTTP2Limits()
        limits.maxConcurrentStreams = 3
        let server = try MockServer(limits: limits)
        let client = try client(server)
        let answers = try pushes(client, count: 300)
        // A stream over the limit would be refused (RST_STREAM REFUSED_STREAM) and libcurl 7.88 would
        // retry it on a new connection.
        #expect(answers.allSatisfy { $0.status == 200 && $0.attempts == 1 })
        #expect(client.connectionsOpened == 1)
        #expect(server.events.pushes.count == 300)
        // The limit was the one announced (an adversary found `maxConcurrentStreams` read by nothing).
        let announced = server.events.all.compactMap { event -> UInt32? in
            if case .settings(_, let streams, _, _) = event { return streams }
            return nil
        }
        #expect(announced.max() == 3, "\(announced)")
    }

    /// A mock with nghttp2's rapid-reset limit at Debian's defaults (`serve --reset-limit 1000/33`).
    static func resetLimitedServer() throws -> MockServer {
        var limits = HTTP2Limits()
        limits.streamResets = (1000, 33)
        return try MockServer(limits: limits)
    }

    @Test(
        "Under nghttp2's rapid-reset limit (1000/33) libcurl's connection is let go after 900 streams: no GOAWAY, each push sent once"
    )
    func connectionLetGoBeforeTheResetLimit() throws {
        let server = try Self.resetLimitedServer()
        let client = try client(server)
        let answers = try pushes(client, count: 2000)
        #expect(answers.allSatisfy { $0.status == 200 && $0.attempts == 1 })
        #expect(client.connectionsOpened == 3)
        #expect(server.events.pushes.count == 2000, "each push accepted once")
        #expect(!server.events.closings.contains { $0.contains("rapid-reset protection") }, "\(server.events.closings)")
    }

    @Test(
        "Kept until the server ends it, libcurl 7.88's resets end the connection after ~1,000 pushes; the fresh-connection retry delivers all, and the mock says why"
    )
    func rapidResetLimit() throws {
        let server = try Self.resetLimitedServer()
        let client = try client(server, streamsPerConnection: nil)
        let answers = try pushes(client, count: 1500)
        #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.first { $0.status != 200 }.map { "\($0)" } ?? "")")
        #expect(Set(server.events.pushes.map(\.connection)).count >= 2)
        // libcurl resets each finished stream; 1,500 resets within seconds exceed the burst of 1,000.
        #expect(
            server.events.closings.contains { $0.contains("rapid-reset protection") && $0.contains("RST_STREAM") },
            "\(server.events.closings)")
    }

    @Test("Errors come back as vocabulary reasons, with the 410 timestamp; certificate auth works")
    func errors() throws {
        let dead = String(repeating: "de", count: 32)
        let server = try MockServer(
            directory: StaticDeviceDirectory([dead: .unregistered(sinceMilliseconds: 1_790_000_000_000)]))
        let client = try client(server, certificate: true)
        let good = OutgoingPush.voip(
            token: Paths.voipToken, bundleId: "com.ringside.testapp", callUUID: "a", caller: "b",
            apnsId: UUID().uuidString)
        var bad = good
        bad.headers = bad.headers.map { $0.name == "apns-priority" ? ($0.name, "7") : $0 }
        let gone = OutgoingPush.voip(
            token: dead, bundleId: "com.ringside.testapp", callUUID: "c", caller: "d", apnsId: UUID().uuidString)
        let answers = try client.send([good, bad, gone])
        #expect(answers.map(\.status) == [200, 400, 410])
        #expect(answers[1].reason == .badPriority)
        #expect(answers[2].reason == .unregistered)
        #expect(answers[2].timestamp == 1_790_000_000_000)
        #expect(answers[0].apnsId?.lowercased() == good.headers.first { $0.name == "apns-id" }?.value.lowercased())
    }

}
