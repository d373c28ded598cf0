import APNs
import MockAPNs
import Testing

/// The mock's HTTP/2 behaviour, driven in memory (`InMemoryMock`): the same engine and rules as
/// `ringside serve`, without a socket, a thread or a sleep. Each test is one behaviour, and each
/// names the broken variant it would catch.
@Suite struct InMemoryMockTests {
    @Test("A valid VoIP push is answered 200 with its apns-id and, in sandbox, an apns-unique-id")
    func validPush() throws {
        let apns = try InMemoryMock()
        let stream = apns.push(jwt: try apns.jwt())
        apns.pump()
        let answer = try #require(apns.client.answers[stream])
        #expect(answer.status == 200, "\(answer)")
        #expect(answer.headers["apns-id"]?.count == 36)
        #expect(answer.headers["apns-unique-id"]?.count == 36)
    }

    /// APNs allows one stream until a request carries a valid JWT ([SEND]): the mock announces 1,
    /// then 1000 once a JWT verified — and not after a forged one.
    @Test("One stream until a valid JWT, then 1000; a forged JWT leaves it at one")
    func oneStreamUntilTheJWT() throws {
        let apns = try InMemoryMock()
        #expect(apns.client.maxConcurrentStreams == 1)
        let jwt = try apns.jwt()
        let forged = apns.push(jwt: String(jwt.dropLast(4)) + "AAAA")
        apns.pump()
        #expect(apns.client.answers[forged]?.status == 403)
        #expect(apns.client.maxConcurrentStreams == 1)
        let valid = apns.push(jwt: jwt)
        apns.pump()
        #expect(apns.client.answers[valid]?.status == 200)
        #expect(apns.client.maxConcurrentStreams == 1000)
    }

    /// A JWT older than an hour is refused ([TOKEN]): an hour passes on the manual clock, not in the test.
    @Test("An hour later the same JWT is refused with ExpiredProviderToken, without sleeping")
    func expiredJWT() throws {
        let apns = try InMemoryMock()
        let jwt = try apns.jwt()
        let first = apns.push(jwt: jwt)
        apns.pump()
        #expect(apns.client.answers[first]?.status == 200)
        apns.advance(by: 3601)
        let late = apns.push(jwt: jwt)
        apns.pump()
        #expect(apns.client.answers[late]?.status == 403)
        #expect(apns.client.answers[late]?.reason == "ExpiredProviderToken")
    }

    @Test("A delay fault holds the answer until the clock has moved that far")
    func delayFault() throws {
        let apns = try InMemoryMock { $0.faults.arm(FaultPlan.Fault(action: .delay(2), count: 1)) }
        let stream = apns.push(jwt: try apns.jwt())
        apns.pump()
        #expect(apns.client.answers[stream]?.status == 0, "not yet answered")
        apns.advance(by: 1.9)
        #expect(apns.client.answers[stream]?.status == 0, "not yet answered")
        apns.advance(by: 0.2)
        #expect(apns.client.answers[stream]?.status == 200)
    }

    @Test("A GOAWAY fault answers the push, then says GOAWAY with its reason; the connection takes no more")
    func goAwayFault() throws {
        let apns = try InMemoryMock { $0.faults.arm(FaultPlan.Fault(action: .goAwayAfterAccepted(1, .shutdown))) }
        let jwt = try apns.jwt()
        let stream = apns.push(jwt: jwt)
        apns.pump()
        #expect(apns.client.answers[stream]?.status == 200)
        let goAway = try #require(apns.client.goAway)
        #expect(goAway.lastStreamId == stream)
        #expect(goAway.debugData.contains("Shutdown"), "\(goAway.debugData)")
    }

    @Test("A push without a provider token on a token connection is refused 403 MissingProviderToken")
    func missingProviderToken() throws {
        let apns = try InMemoryMock()
        let stream = apns.push(jwt: try apns.jwt(), ["authorization": nil])
        apns.pump()
        let answer = try #require(apns.client.answers[stream])
        #expect(answer.status == 403, "\(answer.status) \(answer.reason ?? "")")
        #expect(answer.reason == "MissingProviderToken")
    }
}
