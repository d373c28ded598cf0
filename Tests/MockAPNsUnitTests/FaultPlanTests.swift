import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing

/// Fault plans armed through the control API, seen by a client in memory (`MemoryMock`); time on a
/// manual clock. The certificate fault, which needs TLS, is in MockAPNsTests.
@Suite struct FaultPlanTests {
    @Test(
        "After N accepted pushes: GOAWAY with the last accepted stream, later streams get nothing, the connection closes"
    )
    func goAwayAfterAccepted() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true)
        let phone = try world.phone()
        try world.control("POST", "/faults", ["action": "goaway", "afterAccepted": 2, "reason": "Shutdown"])
        let connection = world.connect()
        let jwt = world.jwt()
        let streams = (0..<3).map { _ in
            defer { world.pump() }
            return connection.push(token: phone.voip, jwt: jwt)
        }
        #expect(streams.prefix(2).map { connection.answer($0).status } == [200, 200])
        #expect(connection.answer(streams[2]).status == 0, "the stream after GOAWAY gets no answer")
        let goAway = try #require(connection.client.goAway)
        #expect(goAway.lastStreamId == 3)
        #expect(goAway.debugData.contains(#""reason":"Shutdown""#), "\(goAway.debugData)")
        #expect(connection.isOpen, "open a second for the answers in flight")
        world.passes(1.1)
        #expect(!connection.isOpen)
        // A new connection works.
        #expect(world.applePush(token: phone.voip).status == 200)
    }

    @Test("A dropped stream gets no answer; the next request is answered")
    func drop() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "drop", "count": 1])
        #expect(world.applePush().status == 0)
        #expect(world.applePush().status == 200)
        #expect(world.events.pushes.first?.fault?.contains("dropped") == true)
    }

    @Test("A delayed answer comes after a later request's answer on the same connection")
    func delay() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true)
        let first = Paths.voipToken
        let second = String(repeating: "cd", count: 32)
        try world.control("POST", "/faults", ["action": "delay", "seconds": 0.5, "token": first])
        let jwt = world.jwt()
        let connection = world.connect()
        // A first request authenticates the connection, so that two streams may then be open at once.
        connection.push(token: second, jwt: jwt)
        world.pump()
        connection.push(token: first, jwt: jwt)
        connection.push(token: second, jwt: jwt)
        world.pump()
        world.passes(0.6)
        #expect(connection.client.happenings == ["end 1", "end 5", "end 3"])
        #expect([1, 3, 5].map { connection.answer($0).status } == [200, 200, 200])
    }

    @Test("A connection idle longer than the fault's limit answers 500 until the provider reconnects")
    func staleConnection() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "stale-connections", "idleSeconds": 0.2])
        let jwt = world.jwt()
        let connection = world.connect()
        var answers: [CurlResponse] = []
        for pause in [0, 0.5, 0] {
            world.passes(pause)
            let stream = connection.push(jwt: jwt)
            world.pump()
            answers.append(CurlResponse(connection.answer(stream)))
        }
        #expect(answers.map { $0.reason ?? "\($0.status)" } == ["200", "InternalServerError", "InternalServerError"])
        #expect(world.applePush().status == 200)
    }

    /// Pushes `requests` one after another on a new connection; returns each answer's reason (or status).
    func reasons(_ world: MemoryMock, _ requests: [(jwt: String?, changes: [String: String?])]) -> (
        reasons: [String], streamLimits: [UInt32]
    ) {
        let connection = world.connect()
        let reasons = requests.map { request in
            var changes = request.changes
            if request.jwt == nil { changes["authorization"] = .some(nil) }
            let stream = connection.push(jwt: request.jwt ?? "", changes)
            world.pump()
            let answer = CurlResponse(connection.answer(stream))
            return answer.reason ?? "\(answer.status)"
        }
        return (reasons, connection.client.streamLimits)
    }

    @Test("After a rejection MAX_CONCURRENT_STREAMS drops to 1, and returns after the next accepted push")
    func lowerStreams() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "lower-streams-after-rejection"])
        let jwt = world.jwt()
        let seen = reasons(world, [(jwt, [:]), (jwt, ["apns-priority": "7"]), (jwt, [:])])
        #expect(seen.reasons == ["200", "BadPriority", "200"])
        #expect(seen.streamLimits == [1, 1000, 1, 1000])
    }

    @Test("A first push refused: the limit its JWT raised drops to 1 after it, not the other way round")
    func lowerStreamsOnTheFirstPush() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "lower-streams-after-rejection"])
        let jwt = world.jwt()
        let first = reasons(world, [(jwt, ["apns-priority": "7"]), (jwt, [:])])
        #expect(first.reasons == ["BadPriority", "200"])
        #expect(first.streamLimits == [1, 1000, 1, 1000], "\(first)")
        // Lowered first by a push without a JWT: the raise the next push's JWT makes is lowered again.
        let second = reasons(world, [(nil, [:]), (jwt, ["apns-priority": "7"]), (jwt, [:])])
        #expect(second.reasons == ["MissingProviderToken", "BadPriority", "200"])
        #expect(second.streamLimits.suffix(3) == [1000, 1, 1000], "\(second)")
    }

    @Test("A GOAWAY after an accepted push whose answer a delay holds back follows that answer")
    func goAwayAfterADelayedAnswer() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "delay", "seconds": 0.5, "count": 1])
        try world.control("POST", "/faults", ["action": "goaway", "afterAccepted": 1, "reason": "Shutdown"])
        let connection = world.connect()
        let stream = connection.push(jwt: world.jwt())
        world.pump()
        #expect(connection.client.happenings.isEmpty, "held back: \(connection.client.happenings)")
        world.passes(0.6)
        #expect(connection.answer(stream).status == 200)
        #expect(connection.client.happenings == ["end 1", "goaway"])
        world.passes(1.1)
        #expect(!connection.isOpen)
    }

    @Test("Faults keyed by world-time window and by connection")
    func keyedFaults() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true)
        let now = world.clock.now().world
        try world.control(
            "POST", "/faults", ["reason": "TooManyRequests", "count": 5, "from": now + 100, "until": now + 200])
        #expect(world.applePush().status == 200)
        try world.control("POST", "/clock/advance", ["seconds": 150])
        #expect(world.applePush().reason == "TooManyRequests")
        try world.control("DELETE", "/faults")
        try world.control("POST", "/faults", ["reason": "ServiceUnavailable", "connection": 99])
        #expect(world.applePush().status == 200)
    }
}
