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
    private let world: SharedWorld?
    private let environment: APNsEnvironment
    /// This connection's copy of the mock's observers (`MockAPNs.emit(_:through:)`).
    @exclusivity(unchecked) private var observers: [any MockObserver] = []

    init(info: ConnectionInfo, mock: MockAPNs) {
        self.info = info
        self.mock = mock
        machine = ConnectionStateMachine(info: info, configuration: mock.configuration, validator: mock.validator)
        clock = mock.configuration.clock
        world = mock.configuration.world
        environment = mock.configuration.validation.environment
    }

    var authenticationDescription: String {
        if let certificate = machine.credentials.certificate {
            return "certificate \(certificate.uid ?? certificate.commonName ?? "?")"
        }
        return "token"
    }

    var initialMaxConcurrentStreams: UInt32 { machine.initialMaxConcurrentStreams }

    /// The state machine decides; this carries its actions out, in order. The world is entered once:
    /// to admit the push (the device check), or to deliver it.
    func handle(_ http: HTTP2Request, connection: ConnectionControl) {
        let now = clock.now()
        actions.removeAll(keepingCapacity: true)
        if case .admit(let push, let apnsId) = machine.receive(http, at: now, into: &actions), let world {
            let (lookup, number) = world.admit(
                push, environment: environment, body: http.body, apnsId: apnsId, at: now.world)
            machine.admitted(lookup, number: number, at: now, into: &actions)
        }
        // Each action is moved out, leaving a payload-free one: iterating copied every action (a
        // retain per string and array of its payload), and clearing the list released them again.
        for index in actions.indices {
            var action = ConnectionAction.tell(0)
            swap(&action, &actions[index])
            carryOut(action, http, at: now, connection: connection)
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
            connection.after(delay) { [weak connection] in connection?.respond(streamId: streamId, response) }
        case .refuse(let streamId):
            connection.after(0) { [weak connection] in connection?.reset(streamId: streamId, errorCode: 7) }
        case .setMaxConcurrentStreams(let limit, whenRead: false):
            connection.setMaxConcurrentStreams(limit)
        case .setMaxConcurrentStreams(let limit, whenRead: true):
            connection.after(0) { [weak connection] in connection?.setMaxConcurrentStreams(limit) }
        case .raiseStreamLimit(let limit):
            connection.after(0) { [weak self, weak connection] in
                connection?.setMaxConcurrentStreams(limit)
                self?.machine.streamLimitRaised()
            }
        case .goAway(let lastStreamId, let reason, .closeWhenWritten):
            connection.goAway(
                lastStreamId: lastStreamId, errorCode: 0, debugData: MockAPNs.goAwayData(reason), close: true)
        case .goAway(let lastStreamId, let reason, .afterAnswers(let seconds)):
            connection.after(seconds) { [weak connection] in
                connection?.goAway(
                    lastStreamId: lastStreamId, errorCode: 0, debugData: MockAPNs.goAwayData(reason), close: false)
                connection?.after(1) { [weak connection] in connection?.close() }
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
            world?.accept(push, environment: environment, body: http.body, apnsId: apnsId, at: now.world)
        case .tell(let number):
            world?.told(number)
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
