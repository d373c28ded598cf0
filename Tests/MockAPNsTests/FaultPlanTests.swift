import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing

/// Fault plans armed through the control API, seen by real clients.
@Suite(.serialized) struct FaultPlanTests {
    @Test(
        "After N accepted pushes: GOAWAY with the last accepted stream, later streams get nothing, the connection closes"
    )
    func goAwayAfterAccepted() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        let phone = try world.phone()
        try world.control("POST", "/faults", ["action": "goaway", "afterAccepted": 2, "reason": "Shutdown"])
        let jwt = Paths.jwt()
        let output = try Probe.run([
            "port": Int(world.server.port), "ca": Paths.ca, "wait": 3, "until_closed": true,
            "requests": [jwt, jwt, jwt].map { Probe.voip(jwt: $0, token: phone.voip) },
        ])
        #expect(Probe.reasons(output).prefix(2) == ["200", "200"])
        let goaway = try #require(output["goaway"] as? [String: Any])
        #expect(goaway["last_stream_id"] as? Int == 3)
        #expect(Probe.goAwayReason(output) == "Shutdown")
        #expect(output["closed"] as? Bool == true)
        // A new connection works.
        #expect(try Curl.applePush(world.server, token: phone.voip).status == 200)
    }

    @Test("A dropped stream gets no answer; the next request is answered")
    func drop() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "drop", "count": 1])
        let dropped = try Curl.applePush(world.server, extra: ["--max-time", "1"])
        #expect(dropped.status == 0)
        #expect(try Curl.applePush(world.server).status == 200)
        #expect(world.server.events.pushes.first?.fault?.contains("dropped") == true)
    }

    @Test("A delayed answer comes after a later request's answer on the same connection")
    func delay() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        let first = Paths.voipToken
        let second = String(repeating: "cd", count: 32)
        try world.control("POST", "/faults", ["action": "delay", "seconds": 0.5, "token": first])
        let jwt = Paths.jwt()
        // A first request authenticates the connection, so that two streams may then be open at once.
        let output = try Probe.run([
            "port": Int(world.server.port), "ca": Paths.ca, "headers_first": true,
            "warmup": Probe.voip(jwt: jwt, token: second),
            "requests": [Probe.voip(jwt: jwt, token: first), Probe.voip(jwt: jwt, token: second)],
        ])
        #expect(output["completion_order"] as? [Int] == [1, 5, 3], "\(output)")
        #expect(Probe.reasons(output) == ["200", "200", "200"])
    }

    @Test("A connection idle longer than the fault's limit answers 500 until the provider reconnects")
    func staleConnection() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "stale-connections", "idleSeconds": 0.2])
        let jwt = Paths.jwt()
        var late = Probe.voip(jwt: jwt)
        late["sleep_before"] = 0.5
        let output = try Probe.run([
            "port": Int(world.server.port), "ca": Paths.ca,
            "requests": [Probe.voip(jwt: jwt), late, Probe.voip(jwt: jwt)],
        ])
        #expect(Probe.reasons(output) == ["200", "InternalServerError", "InternalServerError"])
        #expect(try Curl.applePush(world.server).status == 200)
    }

    @Test("After a rejection MAX_CONCURRENT_STREAMS drops to 1, and returns after the next accepted push")
    func lowerStreams() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "lower-streams-after-rejection"])
        let jwt = Paths.jwt()
        let bad = Probe.voip(jwt: jwt, extra: [["apns-priority", "7"]])
        let output = try Probe.run([
            "port": Int(world.server.port), "ca": Paths.ca,
            "requests": [Probe.voip(jwt: jwt), bad, Probe.voip(jwt: jwt)],
        ])
        #expect(Probe.reasons(output) == ["200", "BadPriority", "200"])
        #expect(output["streams_history"] as? [Int] == [1, 1000, 1, 1000])
    }

    @Test("A first push refused: the limit its JWT raised drops to 1 after it, not the other way round")
    func lowerStreamsOnTheFirstPush() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "lower-streams-after-rejection"])
        let jwt = Paths.jwt()
        let bad = Probe.voip(jwt: jwt, extra: [["apns-priority", "7"]])
        let output = try Probe.run([
            "port": Int(world.server.port), "ca": Paths.ca, "requests": [bad, Probe.voip(jwt: jwt)],
        ])
        #expect(Probe.reasons(output) == ["BadPriority", "200"])
        #expect(output["streams_history"] as? [Int] == [1, 1000, 1, 1000], "\(output)")
        // Lowered first by a push without a JWT: the raise the next push's JWT makes is lowered again.
        let missing = Probe.voip(jwt: nil)
        let second = try Probe.run([
            "port": Int(world.server.port), "ca": Paths.ca, "requests": [missing, bad, Probe.voip(jwt: jwt)],
        ])
        #expect(Probe.reasons(second) == ["MissingProviderToken", "BadPriority", "200"])
        #expect((second["streams_history"] as? [Int])?.suffix(3) == [1000, 1, 1000], "\(second)")
    }

    @Test("A GOAWAY after an accepted push whose answer a delay holds back follows that answer")
    func goAwayAfterADelayedAnswer() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "delay", "seconds": 0.5, "count": 1])
        try world.control("POST", "/faults", ["action": "goaway", "afterAccepted": 1, "reason": "Shutdown"])
        let output = try Probe.run([
            "port": Int(world.server.port), "ca": Paths.ca, "wait": 3, "until_closed": true,
            "requests": [Probe.voip(jwt: Paths.jwt())],
        ])
        #expect(Probe.reasons(output) == ["200"], "\(output)")
        #expect(output["order"] as? [String] == ["end 1", "goaway"], "\(output)")
        #expect(output["closed"] as? Bool == true)
    }

    @Test("A server certificate from a CA the provider does not trust: the handshake fails until disarmed")
    func untrustedServerCertificate() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "untrusted-server-certificate"])
        let refused = try Curl.applePush(world.server)
        #expect(refused.status == 0)
        #expect(refused.stderr.contains("certificate"), "\(refused.stderr)")
        try world.control("DELETE", "/faults")
        #expect(try Curl.applePush(world.server).status == 200)
    }

    @Test("Faults keyed by world-time window and by connection")
    func keyedFaults() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        let now = Date().timeIntervalSince1970
        try world.control(
            "POST", "/faults", ["reason": "TooManyRequests", "count": 5, "from": now + 100, "until": now + 200])
        #expect(try Curl.applePush(world.server).status == 200)
        try world.control("POST", "/clock/advance", ["seconds": 150])
        // The JWT's age is judged on the wall clock when first seen (docs/architecture.md, "Time").
        let jwt = "bearer \(Paths.jwt())"
        #expect(try Curl.applePush(world.server, headers: ["authorization": jwt]).reason == "TooManyRequests")
        try world.control("DELETE", "/faults")
        try world.control("POST", "/faults", ["reason": "ServiceUnavailable", "connection": 99])
        #expect(try Curl.applePush(world.server, headers: ["authorization": jwt]).status == 200)
    }
}
