import APNs
import HTTP2Server
import World

/// One provider connection to the fake APNs: its credentials and its answers.
///
/// A connection's handler runs on its worker's thread only, and none of its fields is passed inout
/// while another access to it is open: the fields read per push skip the dynamic exclusivity
/// checks (`@exclusivity(unchecked)`), which callgrind counted at about 400 instructions a push.
final class APNsConnection: HTTP2ConnectionHandler {
    let info: ConnectionInfo
    let mock: MockAPNs
    /// The connection's rules: what to do about each request (`ConnectionStateMachine`).
    @exclusivity(unchecked) private var machine: ConnectionStateMachine
    /// The actions decided for the request being handled; the buffer is reused request after request.
    @exclusivity(unchecked) private var actions: [ConnectionAction] = []
    // Read once: the configuration is a large value and copying it per request shows in profiles.
    private let clock: any WorldClock
    /// The fault plan, the replay and the world: what the machine asks, and what learns its actions.
    private let inputs: Inputs
    /// This connection's copy of the mock's observers (`MockAPNs.emit(_:through:)`).
    @exclusivity(unchecked) private var observers: [any MockObserver] = []

    init(info: ConnectionInfo, mock: MockAPNs) {
        self.info = info
        self.mock = mock
        machine = ConnectionStateMachine(info: info, configuration: mock.configuration, validator: mock.validator)
        clock = mock.configuration.clock
        inputs = Inputs(mock.configuration)
        holdsSettings = mock.configuration.faults.holdSettings ?? 0
    }

    var authenticationDescription: String {
        if let certificate = machine.credentials.certificate {
            return "certificate \(certificate.uid ?? certificate.commonName ?? "?")"
        }
        return "token"
    }

    var initialMaxConcurrentStreams: UInt32 { machine.initialMaxConcurrentStreams }

    /// Read when the connection opens: a `hold-settings` armed later holds the next connection's.
    let holdsSettings: Double

    /// The state machine decides; this carries its actions out, in order.
    func handle(_ http: HTTP2Request, connection: ConnectionControl) {
        let now = clock.now()
        actions.removeAll(keepingCapacity: true)
        // No capture list: a copy of `inputs` in the closure cost a retain and a release of each plan
        // per request (callgrind).
        Self.decide(http, by: &machine, with: inputs, at: now, into: &actions) { push, apnsId in
            // `.admit` is asked for only with a world (`ConnectionStateMachine.admitsInOneVisit`).
            self.inputs.world?.admit(
                push, environment: self.inputs.environment, body: http.body, apnsId: apnsId, at: now.world)
                ?? (.unknown, nil)
        }
        // Each action is moved out, leaving a payload-free one: iterating copied every action (a
        // retain per string and array of its payload), and clearing the list released them again.
        for index in actions.indices {
            var action = ConnectionAction.tell(0)
            swap(&action, &actions[index])
            carryOut(action, http, at: now, connection: connection)
        }
        // A client that authenticated is never shed for a newcomer at the connection cap or out of
        // descriptors (`ServerConfiguration.untrustedTimeout`'s trust; Worker.shedStranger).
        if !trusted, machine.streams.isAuthenticated {
            trusted = true
            connection.trust()
        }
    }

    private var trusted = false

    /// Where the machine's inputs come from: the fault plan, the replay and the world.
    struct Inputs {
        let faults: FaultPlan
        let replay: ReplayPlan?
        let world: SharedWorld?
        let environment: APNsEnvironment

        init(_ configuration: MockConfiguration) {
            faults = configuration.faults
            replay = configuration.replay
            world = configuration.world
            environment = configuration.validation.environment
        }
    }

    /// Decides `http`, answering each step the machine asks for from `inputs`, and `.admit` by
    /// `admit` (the world's device check: `SharedWorld.admit`). The world is entered once: to admit
    /// the push, or, as an action, to deliver it.
    static func decide(
        _ http: HTTP2Request, by machine: inout ConnectionStateMachine, with inputs: Inputs, at now: Moment,
        into actions: inout [ConnectionAction], admit: (AcceptedPush, MessageId) -> (DeviceLookup, Int?)
    ) {
        var step = machine.receive(http, rules: inputs.faults.rules, at: now, into: &actions)
        while true {
            switch step {
            case .decided: return
            case .replay:
                let recorded = inputs.replay?.answer(for: machine.request)
                var retiredAt: Int64?
                if recorded?.timestamp != nil, let token = machine.request.deviceToken, let world = inputs.world {
                    retiredAt = world.withWorld { $0.retiredAt(token: token, environment: inputs.environment) }
                }
                step = machine.replayed(recorded, retiredAt: retiredAt, at: now, into: &actions)
            case .faults:
                let fault = inputs.faults.take(
                    token: machine.request.deviceToken, connection: machine.connection, at: now.world)
                step = machine.armed(fault, at: now, into: &actions)
            case .admit(let push, let apnsId):
                let (lookup, number) = admit(push, apnsId)
                step = machine.admitted(lookup, number: number, at: now, into: &actions)
            case .countAccepted:
                let reason = inputs.faults.noteAccepted(
                    token: machine.request.deviceToken, connection: machine.connection, at: now.world)
                step = machine.counted(goAway: reason, at: now, into: &actions)
            }
        }
    }

    private func carryOut(
        _ action: ConnectionAction, _ http: HTTP2Request, at now: Moment, connection: ConnectionControl
    ) {
        switch action {
        case .respond(let streamId, let response, let delay):
            guard let delay else {
                connection.respond(streamId: streamId, response)
                return
            }
            connection.after(delay) { connection.respond(streamId: streamId, response) }
        case .refuse(let streamId):
            connection.after(0) { connection.reset(streamId: streamId, errorCode: 7) }
        case .setMaxConcurrentStreams(let limit, whenRead: false):
            connection.setMaxConcurrentStreams(limit)
        case .setMaxConcurrentStreams(let limit, whenRead: true):
            connection.after(0) { connection.setMaxConcurrentStreams(limit) }
        case .raiseStreamLimit(let limit):
            // Held strongly, as every action here: a weak reference gave the connection and its handler
            // a side table, and each retain and release of them took the slow path for the rest of
            // the connection (about 500 instructions a request, callgrind). The action is held only
            // while the connection is open (`ConnectionControl.after`).
            connection.after(0) {
                connection.setMaxConcurrentStreams(limit)
                self.machine.streamLimitRaised()
            }
        case .goAway(let lastStreamId, let reason, .closeWhenWritten):
            connection.goAway(
                lastStreamId: lastStreamId, errorCode: 0, debugData: MockAPNs.goAwayData(reason), close: true)
        case .goAway(let lastStreamId, let reason, .afterAnswers(let seconds)):
            connection.after(seconds) {
                connection.goAway(
                    lastStreamId: lastStreamId, errorCode: 0, debugData: MockAPNs.goAwayData(reason), close: false)
                connection.after(1) { connection.close() }
            }
        case .emit(let event):
            mock.emit(event)
        case .record(let apnsId, let status, let rejection, let accepted, let fault):
            guard mock.isObserved else { return }
            mock.emit(
                .push(
                    PushRecord(
                        connection: info.id, streamId: http.streamId, at: now, request: machine.request,
                        messageId: apnsId, status: status, rejection: rejection, accepted: accepted, fault: fault)),
                through: &observers)
        case .deliver(let push, let apnsId):
            inputs.world?.accept(push, environment: inputs.environment, body: http.body, apnsId: apnsId, at: now.world)
        case .tell(let number):
            inputs.world?.told(number)
        case .replayDiffers(let reason):
            inputs.replay?.noteRefused(machine.request, reason: reason)
        }
    }

    func idleGoAwayDebugData() -> [UInt8] {
        mock.emit(
            .goAway(connection: info.id, lastStreamId: nil, reason: .idleTimeout, at: mock.configuration.clock.now()))
        return MockAPNs.goAwayData(.idleTimeout)
    }

    func refusedStream(_ streamId: Int32, _ refusal: StreamRefusal) {
        mock.emit(
            .streamRefused(connection: info.id, streamId: streamId, why: machine.why(refused: refusal), at: clock.now())
        )
    }

    func closed(why: String) {
        mock.emit(.connectionClosed(connection: info.id, why: why, at: mock.configuration.clock.now()))
    }
}
