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
    @exclusivity(unchecked) private var credentials: ConnectionCredentials
    /// Set when the client certificate could not be read; every request gets `BadCertificate`.
    private var certificateProblem: String?
    @exclusivity(unchecked) private var ids: MessageIdGenerator
    private var closing = false
    /// When the last answer held back by a delay fault is due (wall clock): a GOAWAY waits for it.
    private var answersDueAt = 0.0
    /// Whether the stream limit of a token connection has been raised (after the batch of requests
    /// that proved the first valid JWT).
    private var limitRaised = false
    /// The request that proved the first valid JWT is answered after the raised limit's SETTINGS.
    private var answerAfterRaise = false
    /// World time of the last request, and whether the stale-connection fault has struck.
    @exclusivity(unchecked) private var lastRequestAt: Double?
    private var isStale = false
    /// Set while MAX_CONCURRENT_STREAMS is lowered to 1 after a rejection (fault plan).
    private var streamsLowered = false
    /// Set once a JWT was proved and the stream limit raised from 1.
    private var streamsRaised = false
    // Read once: the configuration is a large value and copying it per request shows in profiles.
    private let clock: any WorldClock
    private let faults: FaultPlan
    private let isSandbox: Bool
    private let authenticatedStreams: UInt32
    private let world: SharedWorld?
    /// Whether the world is asked once per push (`SharedWorld.admit`): the device check is the last.
    private let admitsInOneVisit: Bool
    private let environment: APNsEnvironment
    /// The last header block, what it said, and what the validator learnt from it once it passed
    /// every check. HPACK makes a provider's blocks byte-identical push after push (same token, topic
    /// and JWT): such a block is read and judged once per connection.
    @exclusivity(unchecked) private var lastHeaders:
        (fields: HTTP2Request, request: PushRequest, checked: Validator.CheckedHeaders?)?
    /// This connection's copy of the mock's observers (`MockAPNs.emit(_:through:)`).
    @exclusivity(unchecked) private var observers: [any MockObserver] = []

    init(info: ConnectionInfo, mock: MockAPNs) {
        self.info = info
        self.mock = mock
        ids = MessageIdGenerator(seed: mock.configuration.seed.map { $0 &+ info.id })
        clock = mock.configuration.clock
        faults = mock.configuration.faults
        isSandbox = mock.configuration.validation.environment == .sandbox
        authenticatedStreams = mock.configuration.authenticatedMaxConcurrentStreams
        world = mock.configuration.world
        admitsInOneVisit = world != nil && mock.validator.checksDeviceLast
        environment = mock.configuration.validation.environment
        if let der = info.clientCertificateDER, mock.configuration.authentication != .token {
            do {
                credentials = .certificate(try ClientCertificate(der: der))
            } catch {
                credentials = .certificate(ClientCertificate(uid: nil, topics: [], environments: []))
                certificateProblem = error.description
            }
        } else {
            credentials = .token(TokenAuthentication())
        }
    }

    var authenticationDescription: String {
        if let certificate = credentials.certificate {
            return "certificate \(certificate.uid ?? certificate.commonName ?? "?")"
        }
        return "token"
    }

    /// [SEND]: "APNs allows only one stream until you post a request with a valid authentication
    /// token"; a certificate connection is authenticated by its handshake.
    var initialMaxConcurrentStreams: UInt32 {
        if credentials.certificate != nil { return mock.configuration.authenticatedMaxConcurrentStreams }
        return 1
    }

    func handle(_ http: HTTP2Request, connection: ConnectionControl) {
        let now = clock.now()
        var request: PushRequest
        if lastHeaders?.fields.hasSameFields(as: http) == true {
            request = lastHeaders!.request
        } else {
            request = PushRequest()
            http.forEachField { request.add(name: $0, value: $1) }
            var fields = http
            fields.body = []
            lastHeaders = (fields, request, nil)
        }
        request.body = http.body
        request.bodyLength = http.bodyLength
        let apnsId = request.apnsId.flatMap(MessageId.init(sent:)) ?? ids.nextId()

        if closing {
            // Requests after our GOAWAY on streams we still read: refuse them (RFC 9113 §6.8) — after
            // the GOAWAY itself, which waits for the last answer to be written: a client that saw
            // REFUSED_STREAM first would send the push again on the connection that is going away.
            let streamId = http.streamId
            connection.after(0) { [weak connection] in connection?.reset(streamId: streamId, errorCode: 7) }
            return
        }
        if http.headerListTooLarge {
            // RFC 9113 §10.5.1: a header list larger than the server will handle gets 431.
            // With its ids, as every other answer: the development environment's apns-unique-id too.
            connection.respond(streamId: http.streamId, HTTP2Response(status: 431, unique: idFields(apnsId)))
            record(
                http, request, apnsId: apnsId, status: 431, rejection: nil, accepted: nil,
                fault: "header list over MAX_HEADER_LIST_SIZE", at: now)
            return
        }
        let replayed = mock.configuration.replay?.answer(for: request)
        // A recorded status 0 with a reason was a connection-level answer (GOAWAY on a certificate for
        // the other environment): the rules give it again, as they judge a recorded 200.
        if let recorded = replayed, recorded.status == 0, recorded.reason == nil {
            // Replay of a request that was never answered (a `drop` fault): again no answer.
            record(
                http, request, apnsId: apnsId, status: 0, rejection: nil, accepted: nil,
                fault: "dropped: no answer (replayed)", at: now)
            return
        }
        if let recorded = replayed, recorded.status != 200, recorded.status != 0 {
            // Replay: a recorded refusal, whatever the rules say now. A recorded 200 is judged by the
            // rules as usual, so that the push reaches the world and phone expectations can be judged
            // (same scenario and seed, same verdict; the recording's faults are not armed again).
            // A 410's timestamp is when the token died in this run's world (the scenario retired it
            // again), else the recorded one moved to this run's time.
            let retired =
                recorded.timestamp == nil
                ? nil
                : request.deviceToken.flatMap { token in
                    world?.withWorld { $0.retiredAt(token: token, environment: environment) }
                }
            let rejection = Rejection(
                recorded.reason ?? .internalServerError, check: .device, detail: "replayed from the transcript",
                timestamp: retired ?? recorded.timestamp(forRequestAt: now.world))
            reject(
                http, request, apnsId: recorded.apnsId.flatMap(MessageId.init(sent:)) ?? apnsId, connection: connection,
                at: now, rejection,
                fault: "replayed")
            return
        }
        // A connection idle too long answers 500 until the provider reconnects (fault plan).
        if let idle = faults.staleAfterIdle, let last = lastRequestAt, now.world - last > idle { isStale = true }
        lastRequestAt = now.world
        if isStale {
            reject(
                http, request, apnsId: apnsId, connection: connection, at: now,
                Rejection(
                    .internalServerError, check: .device, detail: "this connection was idle too long (fault plan)"),
                fault: "stale connection")
            return
        }
        var delay: Double?
        switch faults.take(token: request.deviceToken, connection: info.id, at: now.world) {
        case .answer(let reason):
            reject(
                http, request, apnsId: apnsId, connection: connection, at: now,
                Rejection(reason, check: .device, detail: "answered by the armed fault plan"), fault: "fault plan")
            return
        case .drop:
            record(
                http, request, apnsId: apnsId, status: 0, rejection: nil, accepted: nil,
                fault: "dropped: no answer (fault plan)", at: now)
            return
        case .delay(let seconds): delay = seconds
        case .goAwayAfterAccepted, nil: break
        }
        var result: Result<AcceptedPush, Rejection>
        // The push's number in the world once `admit` took it in; its outcome waits for `told`.
        var admitted: Int?
        if admitsInOneVisit, let world {
            result = mock.validator.validate(
                request, credentials: &credentials, at: now, checkingDevice: false, checked: &lastHeaders!.checked)
            if case .success(let accepted) = result {
                let (lookup, number) = world.admit(
                    Self.inWorldTime(accepted, at: now), environment: environment, body: http.body, apnsId: apnsId,
                    at: now.world)
                if var rejection = mock.validator.deviceRejection(
                    lookup, token: accepted.deviceToken, topic: accepted.topic)
                {
                    rejection.notes = accepted.notes
                    result = .failure(rejection)
                } else {
                    admitted = number
                }
            }
        } else {
            result = mock.validator.validate(
                request, credentials: &credentials, at: now, checked: &lastHeaders!.checked)
        }
        // [SEND]: one stream "until you post a request with a valid authentication token" — the
        // token, not the push: a refused push with a valid JWT raises the limit too.
        if !streamsRaised, credentials.tokenState?.hasValidToken == true {
            // Raised once what has been read is dealt with: streams that arrived together with this
            // request, while it was still open, were over the limit of one (as a client that sends a
            // burst before reading SETTINGS finds at APNs), and are refused.
            streamsRaised = true
            let raised = authenticatedStreams
            mock.emit(
                .settings(
                    connection: info.id, maxConcurrentStreams: raised, why: "the first valid JWT raised the limit",
                    at: now))
            connection.after(0) { [weak self, weak connection] in
                connection?.setMaxConcurrentStreams(raised)
                self?.limitRaised = true
            }
            // Its answer follows the SETTINGS, as a client reading in order expects.
            answerAfterRaise = true
        }
        if let certificateProblem, case .failure(let rejection) = result, rejection.reason == .badCertificate {
            result = .failure(Rejection(.badCertificate, check: .authentication, detail: certificateProblem))
        }
        switch result {
        case .success(let accepted):
            if streamsLowered {
                streamsLowered = false
                connection.setMaxConcurrentStreams(authenticatedStreams)
                mock.emit(
                    .settings(
                        connection: info.id, maxConcurrentStreams: authenticatedStreams,
                        why: "an accepted push lifts the limit again (fault plan)", at: now))
            }
            let response = HTTP2Response(status: 200, unique: idFields(apnsId))
            respond(http.streamId, response, after: delay, connection: connection)
            record(
                http, request, apnsId: apnsId, status: 200, rejection: nil, accepted: accepted,
                fault: delay.map { "answered after \($0) s (fault plan)" }, at: now)
            // The world learns of the push after the transcript line of its request (or, taken in by
            // `admit`, tells its outcome only after it).
            if admitsInOneVisit {
                if let admitted { world?.told(admitted) }
            } else {
                world?.accept(
                    Self.inWorldTime(accepted, at: now), environment: environment, body: http.body, apnsId: apnsId,
                    at: now.world)
            }
            if let reason = faults.noteAccepted(token: request.deviceToken, connection: info.id, at: now.world) {
                // GOAWAY with the last accepted stream; later streams are ignored, then the connection
                // closes (incident 1: a provider that ignores GOAWAY rings nobody for hours).
                // nghttp2 sends control frames ahead of responses; APNs answers first, then says GOAWAY
                // (a client that sees GOAWAY before the 200 may send the push again: a duplicate call).
                closing = true
                let streamId = http.streamId
                // Closed once every answer up to the last stream is out (a delay fault holds some).
                let owed = answersDueAt - now.wall
                connection.after(0) { [weak connection] in
                    connection?.goAway(
                        lastStreamId: streamId, errorCode: 0, debugData: MockAPNs.goAwayData(reason), close: false)
                    connection?.after(max(1, owed + 0.5)) { [weak connection] in connection?.close() }
                }
                mock.emit(.goAway(connection: info.id, lastStreamId: http.streamId, reason: reason, at: now))
            }
        case .failure(let rejection) where rejection.reason == .badCertificateEnvironment:
            // Observed: GOAWAY, last-stream-id 0, NO_ERROR, {"reason":"BadCertificateEnvironment"}, then
            // close (APNS-REFERENCE §5; sideshow/apns2 #93, #117).
            closing = true
            connection.goAway(
                lastStreamId: 0, errorCode: 0, debugData: MockAPNs.goAwayData(rejection.reason), close: true)
            record(http, request, apnsId: apnsId, status: 0, rejection: rejection, accepted: nil, fault: nil, at: now)
            mock.emit(.goAway(connection: info.id, lastStreamId: 0, reason: rejection.reason, at: now))
        case .failure(let rejection):
            if replayed != nil {
                // Recorded as accepted, refused by the rules now: the provider's request changed.
                mock.configuration.replay?.noteRefused(request, reason: rejection.reason)
            }
            reject(http, request, apnsId: apnsId, connection: connection, at: now, rejection, fault: nil, after: delay)
            if faults.lowerStreamsAfterRejection, !streamsLowered {
                // O (rdar 27870881): one stream after a rejection, back up after the next accepted push.
                streamsLowered = true
                connection.setMaxConcurrentStreams(1)
                mock.emit(
                    .settings(
                        connection: info.id, maxConcurrentStreams: 1,
                        why: "a rejected push lowers the limit (fault plan)",
                        at: now))
            }
        }
    }

    private func reject(
        _ http: HTTP2Request, _ request: PushRequest, apnsId: MessageId, connection: ConnectionControl, at now: Moment,
        _ rejection: Rejection, fault: String?, after delay: Double? = nil
    ) {
        let response = HTTP2Response(
            status: rejection.reason.status, headers: [("content-type", "application/json")],
            body: Array(rejection.responseBody.utf8), unique: idFields(apnsId))
        respond(http.streamId, response, after: delay, connection: connection)
        record(
            http, request, apnsId: apnsId, status: rejection.reason.status, rejection: rejection, accepted: nil,
            fault: fault ?? delay.map { "answered after \($0) s (fault plan)" }, at: now)
    }

    private func respond(
        _ streamId: Int32, _ response: HTTP2Response, after delay: Double?, connection: ConnectionControl
    ) {
        if let delay { answersDueAt = max(answersDueAt, mock.configuration.clock.now().wall + delay) }
        if answerAfterRaise {
            answerAfterRaise = false
            connection.after(delay ?? 0) { [weak connection] in connection?.respond(streamId: streamId, response) }
            return
        }
        guard let delay else {
            connection.respond(streamId: streamId, response)
            return
        }
        connection.after(delay) { [weak connection] in connection?.respond(streamId: streamId, response) }
    }

    /// `apns-id` always; `apns-unique-id` from the development environment only ([RESP]). Ids change
    /// with every response: never worth a place in the HPACK table (`UniqueField`).
    private func idFields(_ apnsId: MessageId) -> UniqueFields {
        UniqueFields(Self.field("apns-id", apnsId), isSandbox ? Self.field("apns-unique-id", ids.nextId()) : nil)
    }

    private static func field(_ name: StaticString, _ id: MessageId) -> UniqueField {
        UniqueField(name: name, count: MessageId.textCount) { id.write(to: $0.baseAddress!) }
    }

    private func record(
        _ http: HTTP2Request, _ request: PushRequest, apnsId: MessageId, status: Int, rejection: Rejection?,
        accepted: AcceptedPush?, fault: String?, at now: Moment
    ) {
        guard mock.isObserved else { return }
        mock.emit(
            .push(
                PushRecord(
                    connection: info.id, streamId: http.streamId, at: now, request: request, messageId: apnsId,
                    status: status, rejection: rejection, accepted: accepted, fault: fault)),
            through: &observers)
    }

    func idleGoAwayDebugData() -> [UInt8] {
        mock.emit(
            .goAway(connection: info.id, lastStreamId: nil, reason: .idleTimeout, at: mock.configuration.clock.now()))
        return MockAPNs.goAwayData(.idleTimeout)
    }

    /// The push with its expiration moved from the provider's clock (the wall clock) to the world's:
    /// "an hour from now" stays an hour from arrival however far the world clock was advanced.
    static func inWorldTime(_ push: AcceptedPush, at now: Moment) -> AcceptedPush {
        guard let expiration = push.expiration, expiration != 0 else { return push }
        var moved = push
        // The offset is within a century (SystemClock.maximumOffset); the sum saturates, never traps.
        let offset = Int64((now.world - now.wall).rounded())
        let (sum, overflow) = expiration.addingReportingOverflow(offset)
        moved.expiration = overflow ? (offset > 0 ? .max : 1) : max(1, sum)
        return moved
    }

    func refusedStream(_ streamId: Int32, _ refusal: StreamRefusal) {
        let why: String
        if case .heldTooMuch(let limit) = refusal {
            why =
                "the connection's unfinished requests held more than \(limit) bytes of headers and bodies (a Ringside limit, not Apple's); not processed"
        } else if closing {
            why = "after GOAWAY: not processed; a client sends it again on a new connection"
        } else if streamsLowered {
            why = "over MAX_CONCURRENT_STREAMS 1 (lowered after a rejection, fault plan); not processed"
        } else if credentials.certificate == nil, !limitRaised {
            why =
                "over MAX_CONCURRENT_STREAMS 1: APNs allows one stream until a request carries a valid JWT ([SEND]); not processed, and lost unless the client sends it again"
        } else {
            why = "over MAX_CONCURRENT_STREAMS \(authenticatedStreams); not processed"
        }
        mock.emit(.streamRefused(connection: info.id, streamId: streamId, why: why, at: clock.now()))
    }

    func closed(why: String) {
        mock.emit(.connectionClosed(connection: info.id, why: why, at: mock.configuration.clock.now()))
    }
}
