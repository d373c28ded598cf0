import APNs
import HTTP2Server
import World

/// What a provider connection does about one request, as decided by `ConnectionStateMachine`;
/// `APNsConnection` carries the actions out in order. swift-nio-http2's `StateMachineResult` is the
/// model: the decision changes only the connection's own state, while frames, timers, observers and
/// the world are the executor's.
enum ConnectionAction {
    /// Answer a stream: now (`after` nil), or once what has been read is dealt with and `after`
    /// seconds have passed (a delay fault, or behind the SETTINGS that raise the stream limit).
    case respond(streamId: Int32, HTTP2Response, after: Double?)
    /// RST_STREAM REFUSED_STREAM once what has been read is dealt with: a request after our GOAWAY.
    case refuse(streamId: Int32)
    /// SETTINGS_MAX_CONCURRENT_STREAMS (lowered after a rejection, or lifted again): now, or once what
    /// has been read is dealt with (`whenRead`), behind a raise the same request decided.
    case setMaxConcurrentStreams(UInt32, whenRead: Bool)
    /// SETTINGS_MAX_CONCURRENT_STREAMS raised from 1 once what has been read is dealt with: the
    /// first valid JWT ([SEND]).
    case raiseStreamLimit(UInt32)
    /// GOAWAY with `reason` as its debug data.
    case goAway(lastStreamId: Int32, reason: Reason, ending: GoAwayEnding)
    /// The observers hear of a change of the connection (SETTINGS, GOAWAY). Boxed: an event can hold
    /// a push's whole record, and every action would be that large (callgrind: +2,700 instructions a
    /// request in copies of the list).
    indirect case emit(MockEvent)
    /// The request's transcript line.
    case record(apnsId: MessageId, status: Int, rejection: Rejection?, accepted: AcceptedPush?, fault: String?)
    /// The accepted push, in world time, enters the world (when the device check did not take it in).
    case deliver(AcceptedPush, apnsId: MessageId)
    /// Push `number`, taken in by the world's device check, may have its outcome told: its request
    /// line is written.
    case tell(Int)
    /// The replay recorded the request as accepted and the rules refuse it now: the run differs
    /// from the recording (`ReplayPlan.noteRefused`).
    case replayDiffers(Reason)
}

/// How a connection ends after its GOAWAY.
enum GoAwayEnding: Equatable {
    /// The GOAWAY is sent at once and the connection closes when it is written.
    case closeWhenWritten
    /// The GOAWAY follows the answers already decided, `seconds` from now once a delay fault holds
    /// some back; the connection closes a second after it.
    case afterAnswers(Double)
}

/// What the state machine needs from outside before it can go on deciding a request: the fault
/// plan's, the replay's and the world's answers are inputs, asked for in the order the rules meet
/// them, and given back by the executor (`APNsConnection.decide`). Whatever was asked is used: an
/// armed fault is taken only when the request reaches the fault plan.
enum ConnectionStep {
    /// The actions are decided.
    case decided
    /// The replay's recorded answer for `request` (`ReplayPlan.answer(for:)`), and for a recorded
    /// 410 when its device token died in this run's world: `replayed(_:retiredAt:at:into:)`.
    case replay
    /// The fault plan's armed fault for `request` (`FaultPlan.take`): `armed(_:at:into:)`.
    case faults
    /// Every check but the device's passed: the world looks the device token up and takes the push in, in
    /// one visit (`SharedWorld.admit`), and `admitted(_:number:at:into:)` decides the rest.
    case admit(AcceptedPush, apnsId: MessageId)
    /// A push was accepted: the fault plan counts it (`FaultPlan.noteAccepted`), and
    /// `counted(goAway:at:into:)` hears whether a GOAWAY fault fired.
    case countAccepted
}

/// One provider connection's rules: a request's fields in, the actions out.
///
/// It decides; it does not perform. `receive` and the steps after it append `ConnectionAction`s
/// (answer, refuse, SETTINGS, GOAWAY, the transcript line, the push for the world) that
/// `APNsConnection` then carries out in order: frames, timers, observers and the world's delivery are
/// the executor's, and nothing is sent or told before the decision is complete.
///
/// It holds what a connection remembers: its credentials, where it is in its life (`Phase`: open,
/// stale, draining after GOAWAY), the streams it is granted (`Streams`: one until a valid JWT,
/// authenticated, lowered by the fault plan), memoised header blocks and the id generator. The fault
/// plan, the replay and the world are not reached from here: what they say comes in (the plan's
/// `FaultPlan.Rules` with the request, the rest through `ConnectionStep`), and what they must learn
/// goes out as actions. The validator updates the connection's credentials (the provider token's
/// state, the pinned team) and its JWT sightings, and reads the device directory when the device
/// check is not the last (a profile's order; else the world is asked through `.admit`).
struct ConnectionStateMachine {
    let connection: UInt64
    private let validator: Validator
    private let replays: Bool
    private let hasWorld: Bool
    private let isSandbox: Bool
    private let authenticatedStreams: UInt32
    /// Whether the world is asked once per push (`SharedWorld.admit`): the device check is the last.
    private let admitsInOneVisit: Bool

    private(set) var credentials: ConnectionCredentials
    /// Set when the client certificate could not be read; every request gets `BadCertificate`.
    private var certificateProblem: String?
    private var ids: MessageIdGenerator
    /// `apns-unique-id`s, seeded from the system whatever the mock's seed: Apple's are unique, and
    /// no transcript records them, so a replay repeats without them (`apns-id`s follow the seed).
    private var uniqueIds = MessageIdGenerator(seed: nil)
    /// The request being decided, as a push request (its transcript line reads it).
    private(set) var request = PushRequest()
    /// Where the connection is in its life: open, stale, or going away.
    private(set) var phase = Phase.open
    /// How many streams it is granted, and why.
    private(set) var streams: Streams
    /// When the last answer held back by a delay fault is due (wall clock): a GOAWAY waits for it.
    private var answersDueAt = 0.0
    /// Whether the executor has applied the raise of `streams` (`streamLimitRaised()`): until then
    /// nghttp2 still refuses streams over one, and `why(refused:)` says so.
    private var raiseApplied = false
    /// World time of the last request (the stale-connection fault measures idleness from it).
    private var lastRequestAt: Double?
    /// The last header block and what it said and passed (HeaderBlockMemo.swift).
    private var headers = HeaderBlockMemo()
    /// What the steps after `receive` need of the request being decided.
    private var current = Current()

    /// The request being decided, between `receive` and its last step.
    private struct Current {
        var apnsId = MessageId(text: "")
        var streamId: Int32 = 0
        var rules = FaultPlan.Rules()
        /// Held back by a delay fault.
        var delay: Double?
        /// The replay recorded an answer for it (accepted, since the rules judge it).
        var replayed = false
        /// The push the world is looking up (`.admit`).
        var admitting: AcceptedPush?
    }

    /// Where a connection is in its life ([CONN]).
    enum Phase: Equatable {
        /// Requests are decided by the rules.
        case open
        /// Idle longer than the stale-connection fault allows: every request answers 500 until the
        /// provider opens a new connection.
        case stale
        /// Our GOAWAY is decided: requests decided from `refusingFrom` (wall clock, once the answers
        /// a delay fault holds are out) are refused unprocessed.
        case draining(refusingFrom: Double)
    }

    /// The streams a connection is granted ([SEND]), and the fault plan's lowering.
    enum Streams: Equatable {
        /// A token connection before its first valid JWT: one stream.
        case oneUntilJWT
        /// `authenticatedStreams`: authenticated by its certificate, or its first valid JWT proved.
        case authenticated
        /// One stream after a rejection (fault plan) until the next accepted push lifts it;
        /// `authenticated` says whether the connection was (it returns to `authenticated`).
        case lowered(authenticated: Bool)

        var isAuthenticated: Bool {
            switch self {
            case .oneUntilJWT, .lowered(authenticated: false): return false
            case .authenticated, .lowered(authenticated: true): return true
            }
        }
    }

    init(info: ConnectionInfo, configuration: MockConfiguration, validator: Validator) {
        connection = info.id
        self.validator = validator
        replays = configuration.replay != nil
        hasWorld = configuration.world != nil
        isSandbox = configuration.validation.environment == .sandbox
        authenticatedStreams = configuration.authenticatedMaxConcurrentStreams
        admitsInOneVisit = hasWorld && validator.checksDeviceLast
        ids = MessageIdGenerator(seed: configuration.seed.map { $0 &+ info.id })
        streams =
            info.clientCertificateDER != nil && configuration.authentication != .token ? .authenticated : .oneUntilJWT
        if let der = info.clientCertificateDER, configuration.authentication != .token {
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

    /// [SEND]: "APNs allows only one stream until you post a request with a valid authentication
    /// token"; a certificate connection is authenticated by its handshake.
    var initialMaxConcurrentStreams: UInt32 { streams == .authenticated ? authenticatedStreams : 1 }

    /// The executor applied `raiseStreamLimit`.
    mutating func streamLimitRaised() { raiseApplied = true }

    /// Starts deciding `http`, which meets the fault plan's `rules`, appending to `actions`; the
    /// step says what the machine needs next.
    mutating func receive(
        _ http: HTTP2Request, rules: FaultPlan.Rules, at now: Moment, into actions: inout [ConnectionAction]
    ) -> ConnectionStep {
        request = headers.request(for: http)
        request.body = http.body
        request.bodyLength = http.bodyLength
        // Field by field: a whole new `Current` copied and destroyed its pending push each request.
        current.apnsId = request.messageId ?? ids.nextId()
        current.streamId = http.streamId
        current.rules = rules
        current.delay = nil
        current.replayed = false
        current.admitting = nil

        if case .draining(let refusingFrom) = phase {
            // Requests after our GOAWAY on streams we still read: refuse them (RFC 9113 §6.8) — after
            // the GOAWAY itself, which waits for the last answer to be written: a client that saw
            // REFUSED_STREAM first would send the push again on the connection that is going away.
            // While a delay fault holds the GOAWAY back, nothing: nghttp2 closes the streams above its
            // last stream id as it sends it (unprocessed, as the GOAWAY tells the client), and a
            // refusal timed to follow it could go out first.
            if refusingFrom <= now.wall { actions.append(.refuse(streamId: http.streamId)) }
            return .decided
        }
        if http.headerListTooLarge {
            // RFC 9113 §10.5.1: a header list larger than the server will handle gets 431.
            // With its ids, as every other answer: the development environment's apns-unique-id too.
            actions.append(
                .respond(
                    streamId: http.streamId, HTTP2Response(status: 431, unique: idFields(current.apnsId)), after: nil))
            actions.append(
                .record(
                    apnsId: current.apnsId, status: 431, rejection: nil, accepted: nil, fault: Self.headerListFault))
            return .decided
        }
        if replays { return .replay }
        return meetTheFaultPlan(at: now, into: &actions)
    }

    /// The replay's recorded answer for `request` (nil once the run has diverged), and when its
    /// device token was retired in this run's world (asked for a recorded 410 only).
    mutating func replayed(
        _ recorded: ReplayPlan.Exchange?, retiredAt: Int64?, at now: Moment, into actions: inout [ConnectionAction]
    ) -> ConnectionStep {
        current.replayed = recorded != nil
        // A recorded status 0 with a reason was a connection-level answer (GOAWAY on a certificate for
        // the other environment): the rules give it again, as they judge a recorded 200.
        if let recorded, recorded.status == 0, recorded.reason == nil {
            // Replay of a request that was never answered (a `drop` fault): again no answer.
            actions.append(
                .record(
                    apnsId: current.apnsId, status: 0, rejection: nil, accepted: nil,
                    fault: "dropped: no answer (replayed)"))
            return .decided
        }
        if let recorded, recorded.status != 200, recorded.status != 0 {
            // Replay: a recorded refusal, whatever the rules say now. A recorded 200 is judged by the
            // rules as usual, so that the push reaches the world and phone expectations can be judged
            // (same scenario and seed, same verdict; the recording's faults are not armed again).
            // A 410's timestamp is when the device token died in this run's world (the scenario retired it
            // again), else the recorded one moved to this run's time.
            let rejection = Rejection(
                recorded.reason ?? .internalServerError, check: .device, detail: "replayed from the transcript",
                lint: recorded.lint, timestamp: retiredAt ?? recorded.timestamp(forRequestAt: now.world))
            if recorded.judgedByTheRules {
                // The recorded run judged this request's JWT: a valid one raised the stream limit then,
                // and does now. The verdict itself is the recording's.
                _ = validator.validate(
                    request, credentials: &credentials, at: now, checkingDevice: false, checked: &headers.checked)
            }
            let raised = recorded.judgedByTheRules && raiseIfTheJWTIsProved(at: now, into: &actions)
            reject(
                apnsId: recorded.apnsId.flatMap(MessageId.init(sent:)) ?? current.apnsId, at: now, rejection,
                fault: Self.replayedFault, followingRaise: raised, into: &actions)
            return .decided
        }
        return meetTheFaultPlan(at: now, into: &actions)
    }

    /// The stale-connection rule, then the armed faults when there are any.
    private mutating func meetTheFaultPlan(at now: Moment, into actions: inout [ConnectionAction]) -> ConnectionStep {
        // A connection idle too long answers 500 until the provider reconnects (fault plan).
        if let idle = current.rules.staleAfterIdle, let last = lastRequestAt, now.world - last > idle {
            phase = .stale
        }
        lastRequestAt = now.world
        if phase == .stale {
            reject(
                apnsId: current.apnsId, at: now,
                Rejection(
                    .internalServerError, check: .device, detail: "this connection was idle too long (fault plan)"),
                fault: Self.staleFault, into: &actions)
            return .decided
        }
        if current.rules.hasArmedFaults { return .faults }
        return judge(at: now, into: &actions)
    }

    /// The fault plan's armed fault for `request`, if any (it is used up).
    mutating func armed(
        _ fault: FaultPlan.Action?, at now: Moment, into actions: inout [ConnectionAction]
    ) -> ConnectionStep {
        switch fault {
        case .answer(let reason):
            reject(
                apnsId: current.apnsId, at: now,
                Rejection(reason, check: .device, detail: "answered by the armed fault plan"), fault: Self.armedFault,
                after: reason == .expiredProviderToken ? Self.holdUntilANewJWTCanBeTold(request, at: now) : nil,
                into: &actions)
            return .decided
        case .drop:
            actions.append(
                .record(
                    apnsId: current.apnsId, status: 0, rejection: nil, accepted: nil,
                    fault: "dropped: no answer (fault plan)"))
            return .decided
        case .delay(let seconds): current.delay = seconds
        case .goAwayAfterAccepted, nil: break
        }
        return judge(at: now, into: &actions)
    }

    /// A JWT APNs calls expired is over an hour old, so the one the provider signs next has a later
    /// `iat`; a fault that calls a fresh JWT expired holds its answer until a second has passed
    /// since that JWT's `iat`, so the next one can be told from it (a JWT signed again within the
    /// same second is the same token: `refreshed-jwt`, Scenario/Judges.swift). Nil: nothing to hold.
    static func holdUntilANewJWTCanBeTold(_ request: PushRequest, at now: Moment) -> Double? {
        guard let authorization = request.authorization,
            let token = try? ProviderToken.parse(Substring(authorization.split(separator: " ").last ?? "")).get()
        else { return nil }
        let hold = Double(token.issuedAt) + 1 - now.wall
        return hold > 0 ? hold : nil
    }

    /// The rules' checks: every one, or all but the device's when the world admits the push.
    private mutating func judge(at now: Moment, into actions: inout [ConnectionAction]) -> ConnectionStep {
        guard admitsInOneVisit else {
            let result = validator.validate(request, credentials: &credentials, at: now, checked: &headers.checked)
            return decide(result, at: now, into: &actions)
        }
        let result = validator.validate(
            request, credentials: &credentials, at: now, checkingDevice: false, checked: &headers.checked)
        if case .success(let accepted) = result {
            current.admitting = accepted
            return .admit(Self.inWorldTime(accepted, at: now), apnsId: current.apnsId)
        }
        return decide(result, at: now, into: &actions)
    }

    /// The world's answer for the push `receive` asked it to admit: `number` is its place in the
    /// world when the device token was active.
    mutating func admitted(
        _ lookup: DeviceLookup, number: Int?, at now: Moment, into actions: inout [ConnectionAction]
    ) -> ConnectionStep {
        guard let accepted = current.admitting else { return .decided }
        current.admitting = nil
        var result = Result<AcceptedPush, Rejection>.success(accepted)
        if var rejection = validator.deviceRejection(lookup, token: accepted.deviceToken, topic: accepted.topic) {
            rejection.notes = accepted.notes
            result = .failure(rejection)
        }
        return decide(result, at: now, number: number, into: &actions)
    }

    /// The validator's verdict, with what the connection does about it.
    private mutating func decide(
        _ verdict: Result<AcceptedPush, Rejection>, at now: Moment, number: Int? = nil,
        into actions: inout [ConnectionAction]
    ) -> ConnectionStep {
        var result = verdict
        let apnsId = current.apnsId
        let delay = current.delay
        let raised = raiseIfTheJWTIsProved(at: now, into: &actions)
        if let certificateProblem, case .failure(let rejection) = result, rejection.reason == .badCertificate {
            result = .failure(Rejection(.badCertificate, check: .authentication, detail: certificateProblem))
        }
        switch result {
        case .success(let accepted):
            if case .lowered = streams {
                streams = .authenticated
                actions.append(.setMaxConcurrentStreams(authenticatedStreams, whenRead: false))
                actions.append(
                    .emit(
                        .settings(
                            connection: connection, maxConcurrentStreams: authenticatedStreams,
                            why: "an accepted push lifts the limit again (fault plan)", at: now)))
            }
            respond(
                HTTP2Response(status: 200, unique: idFields(apnsId)), after: delay, at: now, followingRaise: raised,
                into: &actions)
            actions.append(
                .record(
                    apnsId: apnsId, status: 200, rejection: nil, accepted: accepted,
                    fault: delay.map(PushRecord.answeredAfter)))
            // The world learns of the push after the transcript line of its request (or, taken in by
            // `admit`, tells its outcome only after it).
            if admitsInOneVisit {
                if let number { actions.append(.tell(number)) }
            } else if hasWorld {
                actions.append(.deliver(Self.inWorldTime(accepted, at: now), apnsId: apnsId))
            }
            return current.rules.hasArmedFaults ? .countAccepted : .decided
        case .failure(let rejection) where rejection.reason == .badCertificateEnvironment:
            // Observed: GOAWAY, last-stream-id 0, NO_ERROR, {"reason":"BadCertificateEnvironment"}, then
            // close (docs/apns-facts.md §5; sideshow/apns2 #93, #117).
            phase = .draining(refusingFrom: 0)
            actions.append(.goAway(lastStreamId: 0, reason: rejection.reason, ending: .closeWhenWritten))
            actions.append(.record(apnsId: apnsId, status: 0, rejection: rejection, accepted: nil, fault: nil))
            actions.append(.emit(.goAway(connection: connection, lastStreamId: 0, reason: rejection.reason, at: now)))
        case .failure(let rejection):
            if current.replayed {
                // Recorded as accepted, refused by the rules now: the provider's request changed.
                actions.append(.replayDiffers(rejection.reason))
            }
            reject(apnsId: apnsId, at: now, rejection, fault: nil, after: delay, followingRaise: raised, into: &actions)
            // Lowered again when this request raised the limit: the raise would lift the lowering.
            if current.rules.lowerStreamsAfterRejection, !Self.isLowered(streams) || raised {
                // O (rdar 27870881): one stream after a rejection, back up after the next accepted push.
                // Behind the raise when this request proved the JWT: else the raise would undo it.
                streams = .lowered(authenticated: streams.isAuthenticated)
                actions.append(.setMaxConcurrentStreams(1, whenRead: raised))
                actions.append(
                    .emit(
                        .settings(
                            connection: connection, maxConcurrentStreams: 1,
                            why: "a rejected push lowers the limit (fault plan)", at: now)))
            }
        }
        return .decided
    }

    /// Whether the accepted push just decided fired a GOAWAY fault, and its reason.
    mutating func counted(goAway reason: Reason?, at now: Moment, into actions: inout [ConnectionAction])
        -> ConnectionStep
    {
        guard let reason else { return .decided }
        // GOAWAY with the last accepted stream; later streams are ignored, then the connection
        // closes (incident 1: a provider that ignores GOAWAY rings nobody for hours).
        // nghttp2 sends control frames ahead of responses; APNs answers first, then says GOAWAY
        // (a client that sees GOAWAY before the 200 may send the push again: a duplicate call).
        // Closed once every answer up to the last stream is out (a delay fault holds some).
        // Closed a second after the GOAWAY.
        let owed = max(0, answersDueAt - now.wall)
        phase = .draining(refusingFrom: now.wall + owed)
        let streamId = current.streamId
        actions.append(.goAway(lastStreamId: streamId, reason: reason, ending: .afterAnswers(owed)))
        actions.append(.emit(.goAway(connection: connection, lastStreamId: streamId, reason: reason, at: now)))
        return .decided
    }

    /// [SEND]: one stream "until you post a request with a valid authentication token" — the token,
    /// not the push: a refused push with a valid JWT raises the limit too. Returns whether it did.
    private mutating func raiseIfTheJWTIsProved(at now: Moment, into actions: inout [ConnectionAction]) -> Bool {
        guard !streams.isAuthenticated, credentials.tokenState?.hasValidToken == true else { return false }
        // Raised once what has been read is dealt with: streams that arrived together with this
        // request, while it was still open, were over the limit of one (as a client that sends a
        // burst before reading SETTINGS finds at APNs), and are refused. A lowered limit stays
        // lowered, now of an authenticated connection.
        streams = Self.isLowered(streams) ? .lowered(authenticated: true) : .authenticated
        actions.append(
            .emit(
                .settings(
                    connection: connection, maxConcurrentStreams: authenticatedStreams,
                    why: "the first valid JWT raised the limit", at: now)))
        actions.append(.raiseStreamLimit(authenticatedStreams))
        return true
    }

    private static func isLowered(_ streams: Streams) -> Bool {
        if case .lowered = streams { return true } else { return false }
    }

    private mutating func reject(
        apnsId: MessageId, at now: Moment, _ rejection: Rejection, fault: String?,
        after delay: Double? = nil, followingRaise: Bool = false, into actions: inout [ConnectionAction]
    ) {
        let response = HTTP2Response(
            status: rejection.reason.status, headers: [("content-type", "application/json")],
            body: Array(rejection.responseBody.utf8), unique: idFields(apnsId))
        respond(response, after: delay, at: now, followingRaise: followingRaise, into: &actions)
        actions.append(
            .record(
                apnsId: apnsId, status: rejection.reason.status, rejection: rejection, accepted: nil,
                fault: fault ?? delay.map(PushRecord.answeredAfter)))
    }

    /// The answer; the request that proved the first valid JWT (`followingRaise`) is answered
    /// after the raised limit's SETTINGS, as a client reading in order expects.
    private mutating func respond(
        _ response: HTTP2Response, after delay: Double?, at now: Moment, followingRaise: Bool,
        into actions: inout [ConnectionAction]
    ) {
        if let delay { answersDueAt = max(answersDueAt, now.wall + delay) }
        actions.append(.respond(streamId: current.streamId, response, after: followingRaise ? delay ?? 0 : delay))
    }

    /// `apns-id` always; `apns-unique-id` from the development environment only ([RESP]). Ids change
    /// with every response: never worth a place in the HPACK table (`UniqueField`).
    private mutating func idFields(_ apnsId: MessageId) -> UniqueFields {
        UniqueFields(Self.field("apns-id", apnsId), isSandbox ? Self.field("apns-unique-id", uniqueIds.nextId()) : nil)
    }

    private static func field(_ name: StaticString, _ id: MessageId) -> UniqueField {
        UniqueField(name: name, count: MessageId.textCount) { id.write(to: $0.baseAddress!) }
    }

    /// Why a stream nghttp2 or the holding limit refused was not processed, from what the
    /// connection knows of its limits.
    func why(refused refusal: StreamRefusal) -> String {
        if case .heldTooMuch(let limit) = refusal {
            return
                "the connection's unfinished requests held more than \(limit) bytes of headers and bodies (a Ringside limit, not Apple's); not processed"
        }
        let oneUntilJWT =
            "over MAX_CONCURRENT_STREAMS 1: APNs allows one stream until a request carries a valid JWT ([SEND]); not processed, and lost unless the client sends it again"
        switch (phase, streams) {
        case (.draining, _):
            return "after GOAWAY: not processed; a client sends it again on a new connection"
        case (_, .lowered):
            return "over MAX_CONCURRENT_STREAMS 1 (lowered after a rejection, fault plan); not processed"
        case (_, .oneUntilJWT): return oneUntilJWT
        case (_, .authenticated) where credentials.certificate == nil && !raiseApplied: return oneUntilJWT
        case (_, .authenticated): return "over MAX_CONCURRENT_STREAMS \(authenticatedStreams); not processed"
        }
    }

    /// The transcript's `fault` for answers given before the rules judged the request (its JWT
    /// too): a replay judges the JWT of every other recorded refusal.
    static let armedFault = "fault plan"
    static let staleFault = "stale connection"
    static let headerListFault = "header list over MAX_HEADER_LIST_SIZE"
    static let replayedFault = "replayed"
    static let answeredBeforeTheRules: Set<String> = [armedFault, staleFault, headerListFault]

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
}
