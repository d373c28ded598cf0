import Foundation
import MockAPNs
import Testing

/// aioapns (PyPI), a real APNs client, sends through the mock as shipped: only host, port and CA
/// are redirected (Tests/clients/aioapns_send.py).
@Suite(.serialized) struct ThirdPartyClientTests {
    static func send(_ arguments: [String], pushes: [[String: Any]]) throws -> [[String: Any]] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: pushes), as: UTF8.self)
        let result = try run("/usr/bin/env", ["python3", Paths.clients + "/aioapns_send.py"] + arguments + [json])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test("aioapns with token authentication: accepted, then an error reason it understands")
    func tokenAuthentication() throws {
        let server = try MockServer()
        let results = try Self.send(
            [
                "\(server.port)", Paths.ca, "--key", Paths.certs + "/AuthKey_RINGKEY001.p8", "RINGKEY001", "RINGTEAM01",
                Paths.topic,
            ],
            pushes: [
                ["token": Paths.voipToken], ["token": "0123abc"], ["token": Paths.voipToken, "push_type": "alert"],
            ])
        #expect(results.map { $0["status"] as? String } == ["200", "400", "400"])
        #expect(results.map { $0["description"] as? String } == [nil, "BadDeviceToken", "InvalidPushType"])
        #expect(results.first?["is_successful"] as? Bool == true)
        // aioapns speaks HTTP/2 with prior knowledge over TLS, offering no ALPN.
        let opened = server.events.all.compactMap { event -> String?? in
            if case .connectionOpened(_, _, let alpn, _, _) = event { return .some(alpn) } else { return nil }
        }
        #expect(opened.first == .some(nil))
    }

    @Test("aioapns with a client certificate: accepted, then an error reason")
    func certificateAuthentication() throws {
        let server = try MockServer()
        let bundle = NSTemporaryDirectory() + "ringside-client-voip-bundle.pem"
        let pem =
            try String(contentsOfFile: Paths.certs + "/client-voip.pem", encoding: .utf8)
            + String(contentsOfFile: Paths.certs + "/client-voip.key", encoding: .utf8)
        try pem.write(toFile: bundle, atomically: true, encoding: .utf8)
        let results = try Self.send(
            ["\(server.port)", Paths.ca, "--cert", bundle, Paths.topic],
            pushes: [["token": Paths.voipToken], ["token": Paths.voipToken, "priority": 7]])
        #expect(results.map { $0["status"] as? String } == ["200", "400"])
        #expect(results.last?["description"] as? String == "BadPriority")
        #expect(server.events.pushes.first?.accepted != nil)
    }

    @Test(
        "kalyke (iat as a numeric string) and apns2-up, a PyAPNs2 fork (iat as a float), deliver with token auth",
        arguments: ["kalyke", "apns2"])
    func lenientTokenClients(client: String) throws {
        let server = try MockServer()
        let result = try run(
            "/usr/bin/env",
            [
                "python3", Paths.clients + "/token_clients.py", client, "\(server.port)", Paths.ca,
                Paths.certs + "/AuthKey_RINGKEY001.p8", "RINGKEY001", "RINGTEAM01", Paths.topic, Paths.voipToken,
                "0123abc",
            ])
        #expect(result.stdout == "{\"status\": \"200\"}\n{\"reason\": \"BadDeviceToken\"}\n", "\(result.stderr)")
    }
}
