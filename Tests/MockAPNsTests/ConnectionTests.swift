import APNs
import Foundation
import HTTP2Server
import MockAPNs
import TestSupport
import Testing

/// Connection-level behaviour on a real socket: TLS, ALPN, client certificates, session resumption,
/// frames only a raw client sends (docs/apns-facts.md §1.2, §6). SETTINGS, stream limits and PING are
/// tested in memory (MockAPNsUnitTests' `ConnectionRulesTests`).
@Suite(.serialized) struct ConnectionTests {
    @Test(
        "HEADERS on a stream id lower than one already used is GOAWAY PROTOCOL_ERROR (RFC 9113 §5.1.1); on a stream still open, STREAM_CLOSED (§5.1)",
        arguments: ["lower", "reuse"])
    func lowerStreamId(kind: String) throws {
        let server = try MockServer(plaintext: true)
        let result = try run(
            "/usr/bin/env",
            ["python3", Paths.clients + "/lower_stream_id.py", "\(server.port)"] + (kind == "reuse" ? ["reuse"] : []))
        let output = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
        let goAway = try #require(output["goaway"] as? [String: Int], "\(output)")
        // Reused while still open: nghttp2's STREAM_CLOSED; once closed (answered first): PROTOCOL_ERROR.
        #expect(kind == "lower" ? goAway["error_code"] == 1 : [1, 5].contains(goAway["error_code"]))
        #expect(goAway["last_stream_id"] == 3)
        if kind == "lower" {
            usleep(100_000)
            let closed = server.events.all.compactMap { event -> String? in
                if case .connectionClosed(_, let why, _) = event { why } else { nil }
            }
            #expect(closed.contains { $0.contains("RFC 9113 §5.1.1") }, "\(closed)")
        }
    }

    @Test("Forty streams opened at once get their own bodies, sent in the opposite order")
    func bodiesFindTheirStreams() throws {
        // More streams wait for DATA than the session searches in order (16): the rest wait by id.
        let server = try MockServer()
        var requests: [[String: Any]] = []
        for index in 0..<40 {
            var request = Probe.voip(jwt: nil)
            request["body"] = index % 2 == 0 ? "" : #"{"aps":{}}"#
            requests.append(request)
        }
        let output = try Probe.run([
            "port": Int(server.port), "ca": Paths.ca, "cert": Paths.certs + "/client-voip.pem",
            "key": Paths.certs + "/client-voip.key", "headers_first": true, "reverse_data": true,
            "requests": requests,
        ])
        let expected: [String?] = (0..<40).map { $0 % 2 == 0 ? "PayloadEmpty" : "200" }
        #expect(Probe.reasons(output) == expected)
    }

    @Test("A client-certificate connection starts with 1000 streams")
    func settingsForCertificateConnections() throws {
        let server = try MockServer()
        let output = try Probe.run([
            "port": Int(server.port), "ca": Paths.ca, "cert": Paths.certs + "/client-voip.pem",
            "key": Paths.certs + "/client-voip.key", "requests": [Probe.voip(jwt: nil)],
        ])
        #expect((output["settings"] as? [String: Int])?["MAX_CONCURRENT_STREAMS"] == 1000)
        #expect(Probe.reasons(output) == ["200"])
    }

    @Test("TLS accepts ALPN h2 and no ALPN at all (prior knowledge), refuses ALPN without h2")
    func alpn() throws {
        let server = try MockServer()
        let withALPN = try Probe.run([
            "port": Int(server.port), "ca": Paths.ca, "alpn": ["h2", "http/1.1"], "requests": [Probe.voip()],
        ])
        #expect(Probe.reasons(withALPN) == ["200"])
        let withoutALPN = try Probe.run(["port": Int(server.port), "ca": Paths.ca, "requests": [Probe.voip()]])
        #expect(Probe.reasons(withoutALPN) == ["200"])
        let http1 = try Curl.applePush(server, extra: ["--http1.1"])
        #expect(http1.status == 0)
        #expect(server.events.refusals.contains { $0.contains("ALPN without h2") })
        #expect(try Curl.applePush(server).status == 200)
    }

    @Test("Cleartext HTTP/2 with prior knowledge when TLS is off")
    func plaintext() throws {
        let server = try MockServer(plaintext: true)
        var arguments = [
            "--http2-prior-knowledge", "-H", "authorization: bearer \(Paths.jwt())", "-H", "apns-topic: \(Paths.topic)",
        ]
        arguments += [
            "-H", "apns-push-type: voip", "--data-binary", "{}",
            "http://127.0.0.1:\(server.port)/3/device/\(Paths.voipToken)",
        ]
        #expect(try Curl.send(arguments).status == 200)
    }

    @Test(
        "Expired and untrusted client certificates are refused in the handshake, and the log says why",
        arguments: [
            ("expired", "certificate has expired"), ("untrusted", "unable to get local issuer certificate"),
        ])
    func refusedCertificates(name: String, why: String) throws {
        let server = try MockServer()
        let response = try Curl.applePush(
            server, headers: ["authorization": nil],
            extra: ["--cert", "\(Paths.certs)/client-\(name).pem", "--key", "\(Paths.certs)/client-\(name).key"])
        #expect(response.status == 0)
        let deadline = Date().addingTimeInterval(2)
        while server.events.refusals.isEmpty, Date() < deadline { usleep(10_000) }
        #expect(server.events.refusals.contains { $0.contains(why) }, "\(server.events.refusals)")
        #expect(try Curl.applePush(server).status == 200)
    }

    @Test("--auth certificate refuses a client without a certificate; --auth token never asks for one")
    func authenticationModes() throws {
        let certificateOnly = try MockServer(authentication: .certificate)
        #expect(try Curl.applePush(certificateOnly).status == 0)
        let withCertificate = try Curl.applePush(
            certificateOnly, headers: ["authorization": nil],
            extra: ["--cert", Paths.certs + "/client-voip.pem", "--key", Paths.certs + "/client-voip.key"])
        #expect(withCertificate.status == 200)
        let tokenOnly = try MockServer(authentication: .token)
        let certificateIgnored = try Curl.applePush(
            tokenOnly, headers: ["authorization": nil],
            extra: ["--cert", Paths.certs + "/client-voip.pem", "--key", Paths.certs + "/client-voip.key"])
        #expect(certificateIgnored.reason == "MissingProviderToken")
    }

    /// A provider that caches TLS sessions resumes them on reconnecting (a GOAWAY, an idle
    /// timeout). The server asks for client certificates, and OpenSSL refuses to resume a session
    /// without a session id context ("session id context uninitialized"): every reconnect failed.
    @Test(
        "A TLS session is resumed, with a JWT or with the client certificate it was made with",
        arguments: ["token", "certificate"], ["1.2", "1.3"])
    func sessionResumption(credentials: String, version: String) throws {
        let server = try MockServer(authentication: credentials == "token" ? .either : .certificate)
        let proof: [String] =
            credentials == "token"
            ? [Paths.jwt()] : [Paths.certs + "/client-voip.pem", Paths.certs + "/client-voip.key"]
        let arguments: [String] = ["python3", Paths.clients + "/tls_resume.py", "\(server.port)", Paths.ca]
        let result = try run("/usr/bin/env", arguments + proof + [version])
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let output = object as? [String: Any]
        let reused = output?["reused"] as? [Bool]
        let statuses = output?["status"] as? [String]
        #expect(reused == [false, true], "\(result.stdout) \(result.stderr) \(server.events.refusals)")
        #expect(statuses == ["200", "200"], "\(result.stdout) \(result.stderr)")
    }
}
