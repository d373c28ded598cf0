import APNs
import Foundation
import MockAPNs
import TestSupport
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

    /// kalyke-apns or apns2-up through the mock, with token or certificate authentication; one JSON
    /// object per push as the client reports it (Tests/clients/python_clients.py).
    static func python(_ client: String, _ mode: String, _ server: MockServer, tokens: [String]) throws
        -> [[String: String]]
    {
        let credentials =
            mode == "token"
            ? [Paths.certs + "/AuthKey_RINGKEY001.p8", "RINGKEY001", "RINGTEAM01"]
            : [Paths.certs + "/client-voip.pem", Paths.certs + "/client-voip.key"]
        let result = try run(
            "/usr/bin/env",
            ["python3", Paths.clients + "/python_clients.py", client, "\(server.port)", Paths.ca, mode] + credentials
                + [Paths.topic] + tokens)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map {
            ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]).mapValues { "\($0)" }
        }
    }

    static let dead = String(repeating: "de", count: 32)

    @Test(
        "kalyke (iat as a numeric string) and apns2-up, a PyAPNs2 fork (iat as a float), with token and certificate auth: a 200 with its apns-id, an error reason, a 410 with its timestamp",
        arguments: ["kalyke", "apns2"], ["token", "certificate"])
    func pythonClients(client: String, mode: String) throws {
        let server = try MockServer(
            directory: StaticDeviceDirectory([Self.dead: .unregistered(sinceMilliseconds: 1_790_000_000_123)]))
        let answers = try Self.python(client, mode, server, tokens: [Paths.voipToken, "0123abc", Self.dead])
        #expect(answers.count == 3)
        guard answers.count == 3 else { return }
        #expect(answers[0]["status"] == "200")
        // kalyke returns the apns-id; PyAPNs2 reports only "Success".
        let accepted = server.events.pushes.first { $0.status == 200 }
        #expect(answers[0]["apnsId"] == (client == "kalyke" ? accepted?.apnsId : "Success"))
        #expect(answers[1]["reason"] == "BadDeviceToken")
        #expect(answers[2]["reason"] == "Unregistered")
        #expect(answers[2]["timestamp"] == "1790000000123")
        #expect(server.events.pushes.allSatisfy { $0.accepted?.notes ?? [] == [] }, "apple notes nothing")
    }

    @Test(
        "voip-lint accepts a string iat (kalyke) and a float iat (apns2-up) and notes each, in the record and the transcript",
        arguments: [("kalyke", LintNote.issuedAtString), ("apns2", .issuedAtFraction)])
    func lintNotes(client: String, note: LintNote) throws {
        let server = try MockServer(settings: ValidationSettings(profile: .voipLint))
        let answers = try Self.python(client, "token", server, tokens: [Paths.voipToken, Paths.voipToken])
        #expect(answers.map { $0["status"] } == ["200", "200"])
        let pushes = server.events.pushes
        #expect(pushes.first?.accepted?.notes == [note], "noted when the connection verifies the JWT")
        // Once per connection: kalyke opens one per push, PyAPNs2 keeps one.
        let sameConnection = pushes.first?.connection == pushes.last?.connection
        #expect(pushes.last?.accepted?.notes == (sameConnection ? [] : [note]))
        #expect(sameConnection == (client == "apns2"))
        let line = TranscriptWriter.render(.push(pushes[0]))
        #expect(line.contains("\"notes\":[\"\(note.rawValue)\"]"), "\(line)")
    }

    @Test("aioapns with time_to_live=0 (apns-expiration: now) passes voip-lint; an hour ahead does not")
    func expirationNowPassesLint() throws {
        let server = try MockServer(settings: ValidationSettings(profile: .voipLint))
        let results = try Self.send(
            [
                "\(server.port)", Paths.ca, "--key", Paths.certs + "/AuthKey_RINGKEY001.p8", "RINGKEY001", "RINGTEAM01",
                Paths.topic,
            ],
            pushes: [["token": Paths.voipToken, "time_to_live": 0], ["token": Paths.voipToken, "time_to_live": 3600]])
        #expect(results.map { $0["status"] as? String } == ["200", "400"])
        #expect(results.last?["description"] as? String == "BadExpirationDate")
        let sent = server.events.pushes.compactMap { $0.request.expiration.flatMap { Int64($0) } }
        #expect(sent.first.map { $0 > 1_700_000_000 } == true, "aioapns sends a time, not 0: \(sent)")
    }

    @Test(
        "The default client certificate loads in a client that reads only PKCS#8 RSA keys (JDK HttpClient), as PEM and as .p12; the EC key does not",
        arguments: [
            ("pem", "client-voip.pem", "client-voip.key", true), ("p12", "client-voip.p12", "ringside", true),
            ("pem", "client-voip-ec.pem", "client-voip-ec.key", false),
        ])
    func javaClient(mode: String, first: String, second: String, loads: Bool) throws {
        let server = try MockServer(authentication: .certificate)
        let second = mode == "p12" ? second : Paths.certs + "/" + second
        let result = try run(
            "/usr/bin/env",
            [
                "java", Paths.clients + "/CertificateClient.java", server.url, Paths.ca, mode,
                Paths.certs + "/" + first,
                second, Paths.voipToken, Paths.topic,
            ])
        if loads {
            #expect(result.stdout.hasPrefix("200 "), "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("HTTP_2"))
            #expect(server.events.pushes.first?.accepted != nil)
        } else {
            #expect(result.stdout.hasPrefix("error: cannot load the credentials"), "\(result.stdout)")
        }
    }
}
