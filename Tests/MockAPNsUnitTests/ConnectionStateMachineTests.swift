import APNs
import Foundation
import TestSupport
import Testing
import World

@testable import HTTP2Server
@testable import MockAPNs

/// The connection's rules without a socket: requests in, actions out (`ConnectionStateMachine`).
/// Each test names the actions in the order the executor carries them out; a machine that answers
/// before its SETTINGS, enters the world twice or forgets its GOAWAY gives another list.
@Suite struct ConnectionStateMachineTests {
    static let keys = try! KeyStore.load(directory: Paths.certs)
    /// One JWT for every push: a connection that sees a new one within 20 minutes answers
    /// TooManyProviderTokenUpdates.
    static let jwt = Paths.jwt()

    /// A machine with the plans its steps are answered from, as `APNsConnection` answers them.
    struct Driven {
        var machine: ConnectionStateMachine
        let inputs: APNsConnection.Inputs
        var streams: ConnectionStateMachine.Streams { machine.streams }
        var phase: ConnectionStateMachine.Phase { machine.phase }
        var initialMaxConcurrentStreams: UInt32 { machine.initialMaxConcurrentStreams }
        func why(refused: StreamRefusal) -> String { machine.why(refused: refused) }
    }

    /// A token connection's machine (no client certificate), with `world` behind it if given.
    static func machine(
        world: SharedWorld? = nil, faults: FaultPlan = FaultPlan(), replay: ReplayPlan? = nil, seed: UInt64 = 7,
        validation: ValidationSettings = ValidationSettings()
    ) -> Driven {
        var configuration = MockConfiguration(validation: validation, keys: keys)
        configuration.world = world
        configuration.faults = faults
        configuration.replay = replay
        configuration.seed = seed
        let validator = Validator(
            settings: configuration.validation, keys: keys, directory: world ?? configuration.directory)
        let info = ConnectionInfo(id: 1, peer: "127.0.0.1:1", isTLS: true, alpn: "h2", clientCertificateDER: nil)
        return Driven(
            machine: ConnectionStateMachine(info: info, configuration: configuration, validator: validator),
            inputs: APNsConnection.Inputs(configuration))
    }

    /// A VoIP push as a provider sends it, on `stream`.
    static let body = #"{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"a"}"#

    static func push(stream: Int32, jwt: String = jwt, token: String = Paths.voipToken) -> HTTP2Request {
        var request = HTTP2Request(streamId: stream)
        let fields = [
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(token)"), (":authority", "localhost"),
            ("authorization", "bearer \(jwt)"), ("apns-topic", Paths.topic), ("apns-push-type", "voip"),
        ]
        for (name, value) in fields {
            Array(name.utf8).withUnsafeBufferPointer { name in
                Array(value.utf8).withUnsafeBufferPointer { value in request.appendField(name: name, value: value) }
            }
        }
        Array(body.utf8).withUnsafeBufferPointer { request.receiveBody($0, keeping: 8192) }
        return request
    }

    /// Each action in a word or three, for comparing lists.
    static func describe(_ actions: [ConnectionAction]) -> [String] {
        actions.map { action in
            switch action {
            case .respond(let stream, let response, let after):
                let ids = response.unique.count
                return "respond \(stream) \(response.status) ids \(ids)" + (after.map { " after \($0)" } ?? "")
            case .refuse(let stream): return "refuse \(stream)"
            case .setMaxConcurrentStreams(let limit, let whenRead):
                return "streams \(limit)" + (whenRead ? " when read" : "")
            case .raiseStreamLimit(let limit): return "raise \(limit)"
            case .goAway(let last, let reason, let ending):
                switch ending {
                case .closeWhenWritten: return "goaway \(last) \(reason.wire) close"
                case .afterAnswers(let seconds):
                    return "goaway \(last) \(reason.wire)" + (seconds > 0 ? " after answers" : "") + " close later"
                }
            case .emit(.settings(_, let limit, _, _)): return "event settings \(limit)"
            case .emit(.goAway(_, let last, let reason, _)): return "event goaway \(last ?? -1) \(reason.wire)"
            case .emit: return "event"
            case .record(_, let status, let rejection, _, _):
                return "record \(status)" + (rejection.map { " \($0.reason.wire)" } ?? "")
            case .deliver: return "deliver"
            case .tell(let number): return "tell \(number)"
            case .replayDiffers(let reason): return "replay differs \(reason.wire)"
            }
        }
    }

    /// The actions for one request, decided as `APNsConnection` decides them; the world's step, if
    /// asked for, is answered with `lookup` (an event marks where).
    static func act(
        _ driven: inout Driven, _ request: HTTP2Request, lookup: DeviceLookup = .active, number: Int? = nil,
        at now: Moment = SystemClock().now()
    ) -> [ConnectionAction] {
        var actions: [ConnectionAction] = []
        var visited = false
        APNsConnection.decide(request, by: &driven.machine, with: driven.inputs, at: now, into: &actions) { _, _ in
            visited = true
            return (lookup, number)
        }
        // Nothing is decided before the world's visit: the mark goes first.
        if visited { actions.insert(.emit(.connectionClosed(connection: 0, why: "", at: now)), at: 0) }
        return actions
    }

    /// `act`, in words.
    static func decide(
        _ driven: inout Driven, _ request: HTTP2Request, lookup: DeviceLookup = .active,
        number: Int? = nil, at now: Moment = SystemClock().now()
    ) -> [String] {
        describe(act(&driven, request, lookup: lookup, number: number, at: now))
    }

    @Test func firstValidJWTRaisesTheLimitAndItsAnswerFollowsTheSettings() {
        var machine = Self.machine()
        #expect(machine.initialMaxConcurrentStreams == 1)
        #expect(machine.streams == .oneUntilJWT)
        #expect(
            Self.decide(&machine, Self.push(stream: 1)) == [
                "event settings 1000", "raise 1000", "respond 1 200 ids 2 after 0.0", "record 200",
            ])
        #expect(machine.streams == .authenticated)
        // Once raised, answers go out at once, and the limit is not raised again.
        #expect(Self.decide(&machine, Self.push(stream: 3)) == ["respond 3 200 ids 2", "record 200"])
    }

    @Test func aBadJWTIsRefusedAndKeepsOneStream() {
        var machine = Self.machine()
        let forged = Self.jwt.dropLast(4) + "AAAA"
        #expect(
            Self.decide(&machine, Self.push(stream: 1, jwt: String(forged)))
                == ["respond 1 403 ids 2", "record 403 InvalidProviderToken"])
        #expect(machine.streams == .oneUntilJWT)
        #expect(
            machine.why(refused: .overLimitOrAfterGoAway).contains("one stream until a request carries a valid JWT"))
    }

    @Test func theWorldIsAskedOnceAndTellsAfterTheRequestLine() {
        var machine = Self.machine(world: SharedWorld())
        // The validator passes every check but the device's; the world's answer decides the rest.
        #expect(
            Self.decide(&machine, Self.push(stream: 1), lookup: .active, number: 5) == [
                "event", "event settings 1000", "raise 1000", "respond 1 200 ids 2 after 0.0", "record 200", "tell 5",
            ])
        #expect(
            Self.decide(&machine, Self.push(stream: 3), lookup: .unknown)
                == ["event", "respond 3 400 ids 2", "record 400 BadDeviceToken"])
        #expect(
            Self.decide(&machine, Self.push(stream: 5), lookup: .unregistered(sinceMilliseconds: 1_800_000_000_000))
                == ["event", "respond 5 410 ids 2", "record 410 Unregistered"])
    }

    @Test func aGoAwayFaultAnswersFirstThenRefusesWhatFollows() {
        let faults = FaultPlan()
        faults.arm(FaultPlan.Fault(action: .goAwayAfterAccepted(1, .shutdown)))
        var machine = Self.machine(faults: faults)
        #expect(
            Self.decide(&machine, Self.push(stream: 1)) == [
                "event settings 1000", "raise 1000", "respond 1 200 ids 2 after 0.0", "record 200",
                "goaway 1 Shutdown close later", "event goaway 1 Shutdown",
            ])
        guard case .draining = machine.phase else {
            Issue.record("a GOAWAY decided drains the connection, found \(machine.phase)")
            return
        }
        #expect(Self.decide(&machine, Self.push(stream: 3)) == ["refuse 3"])
        #expect(machine.why(refused: .overLimitOrAfterGoAway).contains("after GOAWAY"))
    }

    /// A connection idle longer than the stale-connection fault allows turns stale, and stays so.
    @Test func anIdleConnectionTurnsStaleAndAnswers500() {
        let faults = FaultPlan()
        _ = faults.arm(FaultSpec(.staleConnections(idleSeconds: 5)))
        var machine = Self.machine(faults: faults)
        let now = SystemClock().now()
        #expect(
            Self.decide(&machine, Self.push(stream: 1), at: now).suffix(2) == [
                "respond 1 200 ids 2 after 0.0", "record 200",
            ])
        #expect(machine.phase == .open)
        let later = Moment(world: now.world + 6, wall: now.wall)
        #expect(
            Self.decide(&machine, Self.push(stream: 3), at: later) == [
                "respond 3 500 ids 2", "record 500 InternalServerError",
            ])
        #expect(machine.phase == .stale)
        #expect(
            Self.decide(&machine, Self.push(stream: 5), at: later) == [
                "respond 5 500 ids 2", "record 500 InternalServerError",
            ])
    }

    @Test func anArmedAnswerAndADropAreDecidedBeforeTheRules() {
        let faults = FaultPlan()
        faults.arm(FaultPlan.Fault(reason: .tooManyRequests, count: 1))
        faults.arm(FaultPlan.Fault(action: .drop))
        var machine = Self.machine(faults: faults)
        #expect(Self.decide(&machine, Self.push(stream: 1)) == ["respond 1 429 ids 2", "record 429 TooManyRequests"])
        #expect(Self.decide(&machine, Self.push(stream: 3)) == ["record 0"])
    }

    @Test func aHeaderListTooLargeGets431WithItsIds() {
        var machine = Self.machine()
        var request = Self.push(stream: 1)
        request.headerListTooLarge = true
        #expect(Self.decide(&machine, request) == ["respond 1 431 ids 2", "record 431"])
    }

    @Test func aRejectionLowersTheLimitAndTheNextAcceptedPushLiftsIt() {
        let faults = FaultPlan()
        _ = faults.arm(FaultSpec(.lowerStreamsAfterRejection(on: true)))
        var machine = Self.machine(faults: faults)
        #expect(Self.decide(&machine, Self.push(stream: 1)).prefix(2) == ["event settings 1000", "raise 1000"])
        #expect(
            Self.decide(&machine, Self.push(stream: 3, token: "zz"))
                == ["respond 3 400 ids 2", "record 400 BadDeviceToken", "streams 1", "event settings 1"])
        #expect(machine.streams == .lowered(authenticated: true))
        #expect(
            Self.decide(&machine, Self.push(stream: 5))
                == ["streams 1000", "event settings 1000", "respond 5 200 ids 2", "record 200"])
        #expect(machine.streams == .authenticated)
    }

    /// The request that proves the JWT raises the limit; when the rules refuse it, the lowering goes
    /// out behind the raise (else the deferred raise would undo it).
    @Test func aFirstPushRefusedLowersTheLimitBehindTheRaise() {
        let faults = FaultPlan()
        _ = faults.arm(FaultSpec(.lowerStreamsAfterRejection(on: true)))
        var machine = Self.machine(faults: faults)
        #expect(
            Self.decide(&machine, Self.push(stream: 1, token: "zz")) == [
                "event settings 1000", "raise 1000", "respond 1 400 ids 2 after 0.0", "record 400 BadDeviceToken",
                "streams 1 when read", "event settings 1",
            ])
        // Lowered by an earlier rejection (a missing JWT): the raise is lowered again behind it.
        var lowered = Self.machine(faults: faults)
        #expect(
            Self.decide(&lowered, Self.push(stream: 1, jwt: "")).suffix(2) == ["streams 1", "event settings 1"])
        #expect(lowered.streams == .lowered(authenticated: false))
        #expect(
            Self.decide(&lowered, Self.push(stream: 3, token: "zz")) == [
                "event settings 1000", "raise 1000", "respond 3 400 ids 2 after 0.0", "record 400 BadDeviceToken",
                "streams 1 when read", "event settings 1",
            ])
    }

    /// A GOAWAY fault waits for the answer a delay fault holds back; what arrives meanwhile is left to
    /// nghttp2, which closes it as the GOAWAY goes out (a refusal could go out before the GOAWAY).
    @Test func aGoAwayWaitsForADelayedAnswer() {
        let faults = FaultPlan()
        faults.arm(FaultPlan.Fault(action: .delay(0.5), count: 1))
        faults.arm(FaultPlan.Fault(action: .goAwayAfterAccepted(1, .shutdown)))
        var machine = Self.machine(faults: faults)
        #expect(
            Self.decide(&machine, Self.push(stream: 1)) == [
                "event settings 1000", "raise 1000", "respond 1 200 ids 2 after 0.5", "record 200",
                "goaway 1 Shutdown after answers close later", "event goaway 1 Shutdown",
            ])
        #expect(Self.decide(&machine, Self.push(stream: 3)) == [])
    }

    /// The fault plan is an input: the machine asks for its armed fault (`.faults`) only when the
    /// plan says one is armed, and what it is given decides the answer — no plan is reached from here.
    @Test func anArmedFaultIsAnInputAskedForOnlyWhenOneIsArmed() {
        var machine = Self.machine().machine
        var actions: [ConnectionAction] = []
        let now = SystemClock().now()
        guard case .decided = machine.receive(Self.push(stream: 1), rules: .init(), at: now, into: &actions) else {
            Issue.record("no fault armed: decided without asking")
            return
        }
        actions.removeAll()
        let armed = FaultPlan.Rules(hasArmedFaults: true)
        guard case .faults = machine.receive(Self.push(stream: 3), rules: armed, at: now, into: &actions) else {
            Issue.record("a fault armed: the machine asks for it")
            return
        }
        #expect(actions.isEmpty)
        guard case .decided = machine.armed(.answer(.serviceUnavailable), at: now, into: &actions) else {
            Issue.record("an answer is decided at once")
            return
        }
        #expect(Self.describe(actions) == ["respond 3 503 ids 2", "record 503 ServiceUnavailable"])
        actions.removeAll()
        _ = machine.receive(Self.push(stream: 5), rules: armed, at: now, into: &actions)
        _ = machine.armed(.delay(2), at: now, into: &actions)
        #expect(Self.describe(actions) == ["respond 5 200 ids 2 after 2.0", "record 200"])
    }

    /// A request the machine never takes to the fault plan leaves its faults armed: one after our
    /// GOAWAY is refused without using up the fault meant for a later push.
    @Test func aRequestRefusedBeforeThePlanLeavesItsFaultArmed() {
        let faults = FaultPlan()
        faults.arm(FaultPlan.Fault(action: .goAwayAfterAccepted(1, .shutdown)))
        var machine = Self.machine(faults: faults)
        _ = Self.decide(&machine, Self.push(stream: 1))
        faults.arm(FaultPlan.Fault(reason: .tooManyRequests, count: 1))
        #expect(Self.decide(&machine, Self.push(stream: 3)) == ["refuse 3"])
        #expect(faults.count == 1)
    }

    /// Whether an accepted push fires a GOAWAY fault is the plan's count, given back to the machine
    /// (`counted(goAway:)`): nil goes on, a reason drains the connection behind the answer.
    @Test func theAcceptedCountIsAnInput() {
        var machine = Self.machine().machine
        var actions: [ConnectionAction] = []
        let now = SystemClock().now()
        let armed = FaultPlan.Rules(hasArmedFaults: true)
        _ = machine.receive(Self.push(stream: 1), rules: armed, at: now, into: &actions)
        guard case .countAccepted = machine.armed(nil, at: now, into: &actions) else {
            Issue.record("an accepted push with faults armed is counted")
            return
        }
        _ = machine.counted(goAway: nil, at: now, into: &actions)
        #expect(machine.phase == .open)
        actions.removeAll()
        _ = machine.receive(Self.push(stream: 3), rules: armed, at: now, into: &actions)
        _ = machine.armed(nil, at: now, into: &actions)
        _ = machine.counted(goAway: .shutdown, at: now, into: &actions)
        #expect(
            Self.describe(actions) == [
                "respond 3 200 ids 2", "record 200", "goaway 3 Shutdown close later", "event goaway 3 Shutdown",
            ])
        #expect(machine.phase == .draining(refusingFrom: now.wall))
    }
    /// Ids come from the connection's seeded generator: the same seed, the same ids.
    @Test func idsAreTheSeededGenerators() {
        func firstIds(seed: UInt64) -> [String] {
            var machine = Self.machine(seed: seed)
            return Self.act(&machine, Self.push(stream: 1)).compactMap {
                if case .respond(_, let response, _) = $0 { return response.unique.first?.value } else { return nil }
            }
        }
        #expect(firstIds(seed: 7) == firstIds(seed: 7))
        #expect(firstIds(seed: 7) != firstIds(seed: 9))
    }
}
