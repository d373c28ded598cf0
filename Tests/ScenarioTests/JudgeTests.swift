import APNs
import ScenarioLanguage
import Testing
import World

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

    /// A load asks about many calls at once: a call placed before the provider was told of a
    /// token's 410 — before it was done with the call whose push got it — and pushed after the 410
    /// is a race it cannot win; a call placed after it was told, pushing the token, is a dead token
    /// kept.
    @Test("A dead token counts from the first call placed after the provider was told of its 410")
    func deadTokenRace() {
        enum Step {
            case place(Double)
            case push(String, Int, Double)
            /// A push naming its call (the call placed at that time).
            case pushFor(Double, status: Int, at: Double)
            /// The provider was done with the calls placed so far.
            case done(Double)
            /// The provider was done with one call.
            case doneWith(Double, at: Double)
        }
        func tally(_ steps: [Step]) -> Int {
            let tally = LoadTally(population: 2, tokens: [LoadTally.key("aa00"): 0])
            var placed: [LoadRun.Call] = []
            for step in steps {
                switch step {
                case .place(let time):
                    let call = LoadRun.Call(
                        uuid: "\(time)", key: CallKey("\(time)"), callee: 0, placedAt: time, trait: nil)
                    placed.append(call)
                    tally.placed([call])
                case .push(let token, let status, let time): tally.read(Self.push(token, status: status, at: time))
                case .pushFor(let call, let status, let time):
                    guard case .push(var record) = Self.push("aa00", status: status, at: time) else { return -1 }
                    record.request.body = Array(#"{"aps":{},"callUUID":"\#(call)"}"#.utf8)
                    tally.read(.push(record))
                case .done(let time): tally.answered(placed, at: time)
                case .doneWith(let call, let time): tally.answered(placed.filter { $0.uuid == "\(call)" }, at: time)
                }
            }
            return tally.figures().deadTokenPushes
        }
        // The 410 names its call: the provider is told when it is done with that call, not with
        // another call to the same phone (a service handling several at once).
        #expect(
            tally([
                .place(0.9), .place(0.95), .pushFor(0.9, status: 410, at: 1.0), .doneWith(0.95, at: 1.01),
                .place(1.02), .pushFor(1.02, status: 410, at: 1.03),
            ]) == 0)
        #expect(
            tally([
                .place(0.9), .pushFor(0.9, status: 410, at: 1.0), .doneWith(0.9, at: 1.04), .place(1.05),
                .pushFor(1.05, status: 410, at: 1.06),
            ]) == 1)
        // A request is judged by its own call, named in its payload: a call placed before the
        // provider was told, pushed after a later call to the same phone was placed, is the race.
        #expect(
            tally([
                .place(0.9), .place(0.95), .pushFor(0.9, status: 410, at: 1.0), .doneWith(0.9, at: 1.01),
                .place(1.02), .pushFor(0.95, status: 410, at: 1.03),
            ]) == 0)
        // The first call's push gets 410; a second call, placed before the provider was done with
        // the first, pushes the token just after: the race.
        #expect(
            tally([.place(0.9), .push("aa00", 410, 1.0), .place(1.01), .push("aa00", 410, 1.02), .done(1.05)]) == 0)
        // Placed after the provider was done with the first: it was told, and still pushed.
        #expect(
            tally([.place(0.9), .push("aa00", 410, 1.0), .done(1.01), .place(1.02), .push("aa00", 410, 1.03)]) == 1)
        // A token of no callee of the load counts from its 410; a 200 before it never does.
        #expect(tally([.push("cc00", 200, 0.5), .push("cc00", 410, 1), .push("cc00", 410, 2)]) == 1)
    }
}
