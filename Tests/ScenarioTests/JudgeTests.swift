import APNs
import ScenarioLanguage
import Testing

@testable import MockAPNs
@testable import Scenario

/// The judges are pure functions of what was recorded (`Evidence`): these drive them with made-up
/// events, without a mock, a provider, a socket or a sleep. Each pair is one verdict and its
/// broken variant.
@Suite struct JudgeTests {
    static func push(_ token: String, status: Int, connection: UInt64 = 1, stream: Int32 = 1, at: Double = 0)
        -> MockEvent
    {
        var request = PushRequest()
        request.add(name: ":path", value: "/3/device/\(token)")
        var ids = MessageIdGenerator(seed: 1)
        return .push(
            PushRecord(
                connection: connection, streamId: stream, at: Moment(at), request: request, messageId: ids.nextId(),
                status: status))
    }

    static func opened(_ connection: UInt64, at: Double = 0) -> MockEvent {
        .connectionOpened(
            connection: connection, peer: "127.0.0.1", alpn: "h2", authentication: "token", at: Moment(at))
    }

    static func provider(_ build: (inout ProviderExpectation) -> Void) -> ProviderExpectation {
        var expectation = ProviderExpectation(label: "t")
        build(&expectation)
        return expectation
    }

    static let alice = PhoneRef(index: 0, name: "alice")
    static let token = String(repeating: "ab", count: 32)

    @Test("connections-at-most counts opened and refused connections")
    func connectionsAtMost() {
        let evidence = Evidence(events: [
            Self.opened(1), Self.opened(2), .connectionRefused(peer: "p", why: "unknown ca", at: Moment(0)),
        ])
        let three = Self.provider { $0.connectionsAtMost = 3 }
        let two = Self.provider { $0.connectionsAtMost = 2 }
        #expect(Judges.judge(.connectionsAtMost, of: three, evidence).passed)
        let failed = Judges.judge(.connectionsAtMost, of: two, evidence)
        #expect(!failed.passed)
        #expect(failed.seen == .connections(opened: 2, refusedInHandshake: 1), "\(failed.seen)")
        #expect("\(failed.seen)" == "3: 2 opened, 1 refused in the handshake")
    }

    @Test("never-pushes fails on the push after a 410, and names it")
    func neverPushes() throws {
        let expectation = Self.provider { $0.neverPushes = Self.alice }
        var evidence = Evidence(events: [
            Self.push(Self.token, status: 410, stream: 1), Self.push(Self.token, status: 410, stream: 3),
        ])
        evidence.tokens = [0: [Self.token]]
        #expect(try #require(evidence.records.first).request.deviceToken == Self.token)
        let failed = Judges.judge(.neverPushes, of: expectation, evidence)
        #expect(!failed.passed)
        #expect(failed.pushes.map(\.stream) == [3], "the push after the refusal is the evidence")
        guard case .pushesAfterRefusal(1, let first?) = failed.seen else {
            Issue.record("one push after the refusal, named: \(failed.seen)")
            return
        }
        #expect(first.stream == 3 && first.answer == "410")
        #expect("\(failed.seen)".contains("stream 3"), "\(failed.seen)")
        evidence.events.removeLast()
        #expect(Judges.judge(.neverPushes, of: expectation, evidence).passed)
    }

    @Test("reconnected: a push on a connection opened after a GOAWAY")
    func reconnected() {
        let expectation = Self.provider { $0.reconnected = true }
        var evidence = Evidence(events: [
            Self.opened(1, at: 0), Self.push(Self.token, status: 200, connection: 1, at: 0.5),
            .goAway(connection: 1, lastStreamId: 1, reason: .shutdown, at: Moment(1)),
        ])
        #expect(!Judges.judge(.reconnected, of: expectation, evidence).passed)
        evidence.events += [Self.opened(2, at: 2), Self.push(Self.token, status: 200, connection: 2, at: 2.5)]
        #expect(Judges.judge(.reconnected, of: expectation, evidence).passed)
    }

    @Test("refused-streams and goaway count what the mock did, not requests")
    func streamsAndGoAways() {
        var streams = APNsExpectation(label: "t")
        streams.refusedStreams = 2
        var evidence = Evidence(events: [
            .streamRefused(connection: 1, streamId: 3, why: "over the limit", at: Moment(0)),
            Self.push(Self.token, status: 200),
        ])
        #expect(!Judges.judge(.refusedStreams, of: streams, evidence).passed)
        evidence.events.append(.streamRefused(connection: 1, streamId: 5, why: "over the limit", at: Moment(0)))
        #expect(Judges.judge(.refusedStreams, of: streams, evidence).passed)

        var goAway = APNsExpectation(label: "t")
        goAway.goAway = .shutdown
        goAway.count = 1
        #expect(!Judges.judge(.goAway, of: goAway, evidence).passed)
        evidence.events.append(.goAway(connection: 1, lastStreamId: 1, reason: .shutdown, at: Moment(1)))
        #expect(Judges.judge(.goAway, of: goAway, evidence).passed)
        #expect(goAway.checks.count == 1, "a goaway check judges no request")
    }

    @Test("expect apns with count and phone counts that phone's requests, and shows them")
    func requests() {
        var expectation = APNsExpectation(label: "t")
        expectation.count = 1
        expectation.status = 410
        expectation.phone = Self.alice
        var evidence = Evidence(events: [
            Self.push(Self.token, status: 410, stream: 1), Self.push(String(repeating: "cd", count: 32), status: 410),
        ])
        evidence.tokens = [0: [Self.token]]
        let held = Judges.judge(.requests, of: expectation, evidence)
        #expect(held.passed, "\(held.seen)")
        #expect("\(held.seen)".hasPrefix("1 of 2 requests matched"), "\(held.seen)")
        evidence.tokens = [0: []]
        #expect(!Judges.judge(.requests, of: expectation, evidence).passed)
    }

    /// A load asks about many calls at once: a call placed before APNs answered 410 for its token
    /// and pushed just after is a race, not a dead token kept; a call placed after it is.
    @Test("A dead token counts from the first call placed after its 410")
    func deadTokenRace() {
        func tally(_ events: [(String, Int, Double)], calls: [Double]) -> Int {
            let tally = LoadTally(population: 2, tokens: [LoadTally.key("aa00"): 0])
            var placed = calls.makeIterator()
            var next = placed.next()
            for (token, status, at) in events {
                while let time = next, time <= at {
                    tally.placed([LoadRun.Call(uuid: "\(time)", callee: 0, placedAt: time, trait: nil)])
                    next = placed.next()
                }
                tally.read(Self.push(token, status: status, at: at))
            }
            return tally.figures().deadTokenPushes
        }
        let raced = [("aa00", 410, 1.0), ("aa00", 410, 1.05)]
        #expect(tally(raced, calls: [0.9, 0.95]) == 0)
        // The same requests with the second call placed after the answer: the provider was told.
        #expect(tally(raced, calls: [0.9, 1.01]) == 1)
        // A token of no phone of the load counts from its 410; a 200 before it never does.
        #expect(tally([("cc00", 200, 0.5), ("cc00", 410, 1), ("cc00", 410, 2)], calls: []) == 1)
    }
}
