import APNs
import MockAPNs
import TestSupport
import Testing

/// The mock's HTTP/2 behaviour, driven in memory (`MemoryMock`): the same engine and rules as
/// `ringside serve`, without a socket, a thread or a sleep. Each test is one behaviour, and each
/// names the broken variant it would catch.
@Suite struct MemoryMockTests {
    @Test("A valid VoIP push is answered 200 with its apns-id and, in sandbox, an apns-unique-id")
    func validPush() throws {
        let apns = try MemoryMock(acceptsUnknownTokens: true)
        let connection = apns.connect()
        let stream = connection.push(jwt: apns.jwt())
        apns.pump()
        let answer = connection.answer(stream)
        #expect(answer.status == 200, "\(answer)")
        #expect(answer.headers["apns-id"]?.count == 36)
        #expect(answer.headers["apns-unique-id"]?.count == 36)
    }

    /// APNs allows one stream until a request carries a valid JWT ([SEND]): the mock announces 1,
    /// then 1000 once a JWT verified — and not after a forged one.
    @Test("One stream until a valid JWT, then 1000; a forged JWT leaves it at one")
    func oneStreamUntilTheJWT() throws {
        let apns = try MemoryMock(acceptsUnknownTokens: true)
        let connection = apns.connect()
        #expect(connection.client.maxConcurrentStreams == 1)
        let jwt = apns.jwt()
        let forged = connection.push(jwt: String(jwt.dropLast(4)) + "AAAA")
        apns.pump()
        #expect(connection.answer(forged).status == 403)
        #expect(connection.client.maxConcurrentStreams == 1)
        let valid = connection.push(jwt: jwt)
        apns.pump()
        #expect(connection.answer(valid).status == 200)
        #expect(connection.client.maxConcurrentStreams == 1000)
    }

    /// A JWT older than an hour is refused ([TOKEN]): an hour passes on the manual clock, not in the test.
    @Test("An hour later the same JWT is refused with ExpiredProviderToken, without sleeping")
    func expiredJWT() throws {
        let apns = try MemoryMock(acceptsUnknownTokens: true)
        let connection = apns.connect()
        let jwt = apns.jwt()
        let first = connection.push(jwt: jwt)
        apns.pump()
        #expect(connection.answer(first).status == 200)
        apns.passes(3601)
        let late = connection.push(jwt: jwt)
        apns.pump()
        #expect(connection.answer(late).status == 403)
        #expect(connection.answer(late).reason == "ExpiredProviderToken")
    }

    @Test("A delay fault holds the answer until the clock has moved that far")
    func delayFault() throws {
        let plan = FaultPlan()
        plan.arm(FaultPlan.Fault(action: .delay(2), count: 1))
        let apns = try MemoryMock(acceptsUnknownTokens: true) { $0.faults = plan }
        let connection = apns.connect()
        let stream = connection.push(jwt: apns.jwt())
        apns.pump()
        #expect(connection.answer(stream).status == 0, "not yet answered")
        apns.passes(1.9)
        #expect(connection.answer(stream).status == 0, "not yet answered")
        apns.passes(0.2)
        #expect(connection.answer(stream).status == 200)
    }

    @Test("A GOAWAY fault answers the push, then says GOAWAY with its reason; the connection takes no more")
    func goAwayFault() throws {
        let plan = FaultPlan()
        plan.arm(FaultPlan.Fault(action: .goAwayAfterAccepted(1, .shutdown)))
        let apns = try MemoryMock(acceptsUnknownTokens: true) { $0.faults = plan }
        let connection = apns.connect()
        let jwt = apns.jwt()
        let stream = connection.push(jwt: jwt)
        apns.pump()
        #expect(connection.answer(stream).status == 200)
        let goAway = try #require(connection.client.goAway)
        #expect(goAway.lastStreamId == stream)
        #expect(goAway.debugData.contains("Shutdown"), "\(goAway.debugData)")
    }

    @Test("A push without a provider token on a token connection is refused 403 MissingProviderToken")
    func missingProviderToken() throws {
        let apns = try MemoryMock(acceptsUnknownTokens: true)
        let connection = apns.connect()
        let stream = connection.push(jwt: apns.jwt(), ["authorization": nil])
        apns.pump()
        let answer = connection.answer(stream)
        #expect(answer.status == 403, "\(answer.status) \(answer.reason ?? "")")
        #expect(answer.reason == "MissingProviderToken")
    }
}
