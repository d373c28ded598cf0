import APNs
import Foundation
import MockAPNs
import Provider
import ScenarioLanguage
import World

/// What a check found: its verdict, what was expected and what was seen (values, with the pushes
/// they name: `Findings.swift` writes them), the pushes it is about, and the phone's story behind
/// it. Judges return it; the runner hands its text to the reports.
struct ExpectationResult {
    var verdict: Verdict
    var expected: Expected
    var seen: Seen
    var chain: [String] = []
    /// The pushes the verdict rests on (the first after a refusal, the one whose story is told).
    var pushes: [PushReference] = []
    /// What went wrong first, in a few words, when it failed: the first step of the push's story
    /// that kept it from ringing, or APNs's refusal (failures are grouped by it).
    var cause: String?

    init(passed: Bool, expected: Expected, seen: Seen, chain: [String] = [], pushes: [PushReference] = []) {
        verdict = passed ? .passed : .failed
        self.expected = expected
        self.seen = seen
        self.chain = chain
        self.pushes = pushes
    }

    /// Held, or cannot be judged of this provider (not counted).
    var passed: Bool { verdict != .failed }
    var notApplicable: Bool { verdict == .notApplicable }
}

/// Which push: the connection and stream it came on, and when (world time).
public struct PushReference: Sendable, Equatable {
    public var connection: UInt64
    public var stream: Int32
    public var at: Double

    init(_ record: PushRecord) {
        connection = record.connection
        stream = record.streamId
        at = record.at.world
    }
}

/// What the scenario recorded when a check is judged: the mock's events, what the provider said it
/// did, the world's records of pushes, and the tokens of the phones the check names. A snapshot:
/// the judges read nothing else, so judging is a pure function of it (JudgeTests drives them without
/// a mock or a provider).
struct Evidence {
    var events: [MockEvent] = [] {
        didSet { index() }
    }
    var actions: [ProviderAction] = []
    /// The world's record of every push it was handed, in order.
    var fates: [PushFate] = []
    /// Every token of each phone the check names (those handed to the provider, those its apps
    /// have, those its pushes went to), lowercased.
    var tokens: [Int: Set<String>] = [:]
    /// Wall time each call step started: a push sent again belongs to the same call.
    var callStarts: [Double] = []
    /// Where the app reads the call id (`WorldSettings.callPaths`): a retry is the same call's push.
    var callPaths: CallPaths?

    private(set) var records: [PushRecord] = []
    /// When each connection was opened (wall clock).
    private(set) var openedAt: [UInt64: Double] = [:]
    /// GOAWAY frames the mock sent: on which connection, with which reason, and when.
    private(set) var goAways: [(connection: UInt64, reason: Reason, at: Moment)] = []
    /// Streams refused unprocessed (REFUSED_STREAM): on which connection, why, and when.
    private(set) var refusedStreams: [(connection: UInt64, why: String, at: Moment)] = []
    /// Connections refused in the TLS handshake: why, and when.
    private(set) var refusals: [(why: String, at: Moment)] = []

    init(events: [MockEvent] = []) {
        self.events = events
        index()
    }

    /// Whether the provider tried to push: a POST to a device token, or a TLS handshake it began
    /// and that failed on the certificates (one that refused the server's by closing counts). A TCP
    /// probe, a handshake never begun, cleartext to the TLS port or a GET is no attempt to push.
    var showsSignsOfLife: Bool {
        records.contains { !($0.request.deviceToken ?? "").isEmpty && $0.request.method == "POST" }
            || refusals.contains { Self.failedOnCertificates($0.why) }
    }

    /// Whether a handshake failed on the certificates — the server's refused by the client (with an
    /// alert, or by closing after it), or the client's refused by the server: a provider that tried
    /// to push. A probe, cleartext, HTTP/1.1's ALPN or an old TLS version never got that far.
    static func failedOnCertificates(_ why: String) -> Bool {
        why.hasPrefix("the client closed the connection after the server's certificate")
            || why.contains("certificate") || why.contains("unknown ca")
    }

    private mutating func index() {
        records = []
        openedAt = [:]
        goAways = []
        refusedStreams = []
        refusals = []
        for event in events {
            switch event {
            case .push(let record): records.append(record)
            case .connectionOpened(let connection, _, _, _, let at): openedAt[connection] = at.wall
            case .goAway(let connection, _, let reason, let at): goAways.append((connection, reason, at))
            case .streamRefused(let connection, _, let why, let at): refusedStreams.append((connection, why, at))
            case .connectionRefused(_, let why, let at): refusals.append((why, at))
            default: break
            }
        }
    }
}

/// The calls a phone check is judged against: the named call's id, the phone's latest call, and
/// which step was given each id.
struct CallContext {
    /// The id of the call named with `call:`, if any.
    var named: String?
    /// The phone's latest call, its world time and id.
    var latest: (at: Double, id: String)?
    /// The line of the call step that was given each call id.
    var lines: [String: Int] = [:]
    /// When the named call was placed (world time): a phantom ring after it is the caller's too.
    var namedAt: Double?
    /// Where the team's app reads the call id (`call-id-at`), quoted when a push carries none there.
    var callIdPath: String?

    /// Whose call a call id is: a call of this scenario (by its line), or none.
    func whose(_ uuid: String?) -> String {
        guard let uuid = uuid?.lowercased(), !uuid.isEmpty else {
            return "it carries no call id" + (callIdPath.map { " at \($0), where the app reads it" } ?? "")
        }
        if let line = lines[uuid] { return "it carries call id \(uuid), the call at line \(line)" }
        return "it carries call id \(uuid), which no call of this scenario was given"
    }
}

/// The judges: one pure function per expectation kind, switching over its declared checks
/// (`APNsExpectation.Check`, `ProviderExpectation.Check`). *When* each is judged is the
/// declaration's (`judging`), read by the runner; *how* is here.
enum Judges {
    // MARK: expect phone

    static func judge(_ expectation: PhoneExpectation, call: CallContext, _ evidence: Evidence) -> ExpectationResult {
        let id = expectation.phone.index
        let callUUID = call.named
        // Without `call:`, the phone's latest call: a ring counts for it only if the push that rang
        // carries its id (a stale payload, or a made-up id, rings no call of the caller's).
        let thisCall = callUUID ?? call.latest?.id
        let expected = Expected.outcome(
            expectation.outcome, reason: expectation.reason, phone: expectation.phone.name, call: expectation.call,
            rules: expectation.rules)
        /// A push that rang (on time or late) with another call's id, or a made-up one.
        func ringsAnotherCall(_ fate: PushFate) -> Bool {
            guard let thisCall, fate.outcome.finalKind == .rang || fate.outcome.finalKind == .rangLate else {
                return false
            }
            return fate.callUUID?.lowercased() != thisCall
        }
        func matches(_ fate: PushFate) -> Bool {
            let rules = Set(fate.chain.compactMap(\.step.rule))
            return fate.outcome.finalKind == expectation.outcome
                && (expectation.reason == nil || fate.outcome.reason == expectation.reason)
                && expectation.rules.allSatisfy(rules.contains) && !ringsAnotherCall(fate)
        }
        let since = callUUID == nil ? call.latest?.at : nil
        let records = evidence.records
        // With `call:`, its pushes, and any push since it was placed that rang with an id no call
        // of the scenario was given (a made-up one, or none): the user lived through that ring.
        let judged = evidence.fates.filter { push in
            guard push.phone == id, push.sentAt >= (since ?? -.infinity) else { return false }
            guard let callUUID else {
                // Another call's push that came after this one was placed (a job queue's, late) is
                // that call's: its own expectation judges it. A made-up id, or none, is a phantom.
                let pushCall = push.callUUID?.lowercased()
                return pushCall == thisCall || pushCall.map { call.lines[$0] == nil } ?? true
            }
            let pushCall = push.callUUID?.lowercased()
            if pushCall == callUUID { return true }
            return push.sentAt >= (call.namedAt ?? .infinity) && pushCall.map { call.lines[$0] == nil } ?? true
                && ringsAnotherCall(push)
        }
        func isDuplicate(_ fate: PushFate) -> Bool {
            if case .duplicate = fate.outcome { return true } else { return false }
        }
        /// The push that rang, when `duplicate` is a resend of it after an ambiguous failure — the
        /// same request, its apns-id and call id, sent again because no answer had come back when
        /// it was sent (dropped, or late). CallKit refuses it as a duplicate: the call still rang,
        /// once. Resending a push whose 200 had arrived is the provider's mistake, and a second push
        /// of another request is no resend.
        func excusedResend(_ duplicate: PushFate) -> PushFate? {
            guard case .duplicate(let uuid) = duplicate.outcome,
                let rung = judged.last(where: {
                    $0.callUUID?.lowercased() == uuid.lowercased() && $0.apnsId == duplicate.apnsId && matches($0)
                }),
                // The request whose push rang, and the resend.
                let rang = records.last(where: {
                    $0.apnsId == rung.apnsId && $0.at.world <= rung.sentAt
                        && $0.request.deviceToken?.lowercased() == rung.token.lowercased()
                }),
                let resend = records.last(where: {
                    $0.apnsId == duplicate.apnsId && $0.at.world <= duplicate.sentAt
                        && $0.request.deviceToken?.lowercased() == duplicate.token.lowercased()
                })
            else { return nil }
            // An answer that said it failed (a fault's 5xx) also asks for the resend.
            return rang.status != 200 || rang.answeredAt.map({ $0 > resend.at.wall }) ?? true ? rung : nil
        }
        var fate = judged.last
        var note: FateNote?
        // A ghost — a push that rang after the caller gave up — is what the caller lived
        // through: a later push (a "cancel") does not hide it.
        if let phantom = judged.last(where: ringsAnotherCall), phantom.number != fate?.number {
            // A phantom — the phone rang with another call's id, or a made-up one — is what the
            // user lived through: a later push for the right call does not undo it.
            fate = phantom
            note = .phantom
        } else if expectation.outcome != .rangLate,
            let ghost = judged.last(where: { $0.outcome.finalKind == .rangLate }),
            ghost.number != fate?.number
        {
            fate = ghost
            note = .ghost
        } else if let latest = fate, !matches(latest), let rung = excusedResend(latest) {
            // Every other duplicate of the call must be an excused resend too: one that is not
            // (another request for the same call) is the provider's mistake, whatever came after.
            if let unexcused = judged.last(where: {
                $0.number != latest.number && isDuplicate($0) && excusedResend($0) == nil
            }) {
                fate = unexcused
            } else {
                fate = rung
                note = .resentDuplicate
            }
        }
        var missing: [PhoneRule] = []
        if let fate {
            let rules = Set(fate.chain.compactMap(\.step.rule))
            missing = expectation.rules.filter { !rules.contains($0) }
        }
        // The request behind the push: its apns-id, the last such before it was accepted.
        let record = fate.flatMap { fate in records.last { $0.apnsId == fate.apnsId && $0.at.world <= fate.sentAt } }
        let seen =
            fate.map { fate in
                Seen.fate(
                    outcome: "\(fate.outcome.kind)", reason: fate.outcome.reason, note: note,
                    anotherCall: ringsAnotherCall(fate) ? thisCall.map { (call.whose(fate.callUUID), $0) } : nil,
                    missingRules: missing, push: record.map { SeenPush($0) }, apnsId: "\(fate.apnsId)")
            }
            ?? whatAPNsAnswered(phone: id, callUUID: callUUID, since: since, evidence)
        var result = ExpectationResult(
            passed: fate.map(matches) ?? false, expected: expected, seen: seen, chain: fate?.texts ?? [],
            pushes: record.map { [PushReference($0)] } ?? [])
        if !result.passed { result.cause = firstCause(fate, evidence, phone: id) }
        return result
    }

    /// What kept the phone from ringing, first: the first step of the push's story that means no
    /// ring, else the first answer APNs refused a request for the phone with.
    static func firstCause(_ fate: PushFate?, _ evidence: Evidence, phone id: Int) -> String? {
        if let fate, let rule = fate.chain.compactMap(\.step.rule).first(where: PhoneRule.failures.contains) {
            return rule.summary
        }
        let tokens = evidence.tokens[id] ?? []
        let refused = evidence.records.first {
            $0.status != 200 && tokens.contains(($0.request.deviceToken ?? "").lowercased())
        }
        if let refused { return "APNs answered \(refused.answer)" }
        if evidence.records.isEmpty { return "no push reached APNs" }
        return nil
    }

    /// Why no push reached the phone, from what APNs answered to requests for its tokens.
    static func whatAPNsAnswered(phone id: Int, callUUID: String?, since: Double?, _ evidence: Evidence) -> Seen {
        let tokens = evidence.tokens[id] ?? []
        let answers = evidence.records.filter {
            tokens.contains(($0.request.deviceToken ?? "").lowercased()) && $0.at.world >= (since ?? -.infinity)
        }
        if answers.isEmpty {
            let refused = evidence.refusedStreams.filter { $0.at.world >= (since ?? -.infinity) }
            // A provider that could not connect is told why: the handshake the mock refused.
            let handshakes = evidence.refusals.filter { $0.at.world >= (since ?? -.infinity) }
            return .noPushReachedAPNs(
                sinceLatestCall: since != nil, otherRequests: evidence.records.count,
                refusedStreams: refused.first.map { (refused.count, $0.why) },
                handshakes: handshakes.last.map { (handshakes.count, $0.why) })
        }
        return .notDelivered(
            forCall: callUUID != nil, answers: answers.suffix(8).map { SeenPush($0) }, more: answers.count > 8)
    }

    // MARK: expect apns

    static func judge(_ check: APNsExpectation.Check, of expectation: APNsExpectation, _ evidence: Evidence)
        -> ExpectationResult
    {
        switch check {
        case .refused:
            // A connection refused in the TLS handshake, with `refused` in the mock's reason.
            let refused = expectation.refused ?? ""
            let reasons = evidence.refusals.map(\.why)
            return ExpectationResult(
                passed: reasons.contains { $0.contains(refused) }, expected: .connectionRefused(containing: refused),
                seen: .refusals(reasons))
        case .refusedStreams:
            let expected = expectation.refusedStreams ?? 0
            let refused = evidence.refusedStreams
            return ExpectationResult(
                passed: refused.count == expected,
                expected: .refusedStreams(expected),
                seen: .refusedStreams(count: refused.count, firstWhy: refused.first?.why))
        case .goAway:
            // GOAWAYs the mock sent with this reason; `count` then counts them, not requests.
            let sent = evidence.goAways.map(\.reason)
            let matching = sent.filter { $0 == expectation.goAway }.count
            return ExpectationResult(
                passed: expectation.count.map { matching == $0 } ?? (matching > 0),
                expected: .goAways(count: expectation.count, reason: expectation.goAway), seen: .goAways(sent))
        case .requests:
            return requests(expectation, evidence)
        }
    }

    private static func requests(_ expectation: APNsExpectation, _ evidence: Evidence) -> ExpectationResult {
        let phoneTokens = expectation.phone.map { evidence.tokens[$0.index] ?? [] }
        func matches(_ record: PushRecord) -> Bool {
            if let status = expectation.status, record.status != status { return false }
            if let reason = expectation.reason, record.rejection?.reason != reason { return false }
            if let phoneTokens, !phoneTokens.contains((record.request.deviceToken ?? "").lowercased()) { return false }
            if let header = expectation.header, record.request.header(named: header.name) != header.value {
                return false
            }
            return true
        }
        var description = [
            expectation.status.map { "status \($0)" }, expectation.reason?.wire,
            expectation.phone.map { "to \($0.name)" }, expectation.header.map { "with <\($0.name): \($0.value)>" },
        ].compactMap { $0 }.joined(separator: " ")
        if description.isEmpty { description = "requests" }
        let records = evidence.records
        let matching = records.filter(matches)
        let passed = expectation.count.map { matching.count == $0 } ?? !matching.isEmpty
        // What was seen, by push: the matching ones when there are too many, else all.
        let shown = (expectation.count != nil && !matching.isEmpty ? matching : records).suffix(8)
        return ExpectationResult(
            passed: passed, expected: .requests(count: expectation.count, matching: description),
            seen: .requests(
                matching: matching.count, of: records.count,
                shown: shown.map { SeenPush($0, header: expectation.header?.name) }),
            pushes: shown.map(PushReference.init))
    }

    // MARK: expect provider

    /// An aggregate over a load's calls (`expect load`): the figure beside its threshold, and for a
    /// share that fell short the first calls that missed, with their stories.
    static func judge(_ check: LoadExpectation.Check, _ expectation: LoadExpectation, _ figures: LoadFigures)
        -> ExpectationResult
    {
        func percent(_ value: Double) -> String {
            String(format: value * 100 == (value * 100).rounded() ? "%.0f%%" : "%.1f%%", value * 100)
        }
        switch check {
        case .rang:
            let least = expectation.rangAtLeast!
            let share = figures.calls == 0 ? 1 : Double(figures.rang) / Double(figures.calls)
            return ExpectationResult(
                passed: share >= least,
                expected: .loadFigure("at least \(percent(least)) of the load's calls rang in time"),
                seen: .loadFigure(
                    "\(percent(share)) rang (\(figures.rang) of \(figures.calls); \(figures.reachable) went to phones that could ring)"
                        + (figures.missedBy.isEmpty
                            ? ""
                            : "; missed: "
                                + figures.missedBy.prefix(4).map { "\($0.count) \($0.cause)" }.joined(separator: ", ")),
                    worst: share >= least ? [] : figures.worst))
        case .ringP50, .ringP95, .ringP99:
            let percentile = check.percentile!
            let most = expectation.ringLatencyAtMost.first { $0.percentile == percentile }!.seconds
            let seen = figures.latency(percentile)
            return ExpectationResult(
                passed: seen.map { $0 <= most } ?? false,
                expected: .loadFigure("ring latency p\(percentile) at most \(LoadFigures.seconds(most))"),
                seen: .loadFigure(
                    seen.map {
                        "p\(percentile) \(LoadFigures.seconds($0)) over \(figures.latencies.count) calls that rang"
                    }
                        ?? "no call rang", worst: []))
        case .deadTokenPushes:
            let most = expectation.deadTokenPushesAtMost!
            return ExpectationResult(
                passed: figures.deadTokenPushes <= most,
                expected: .loadFigure("at most \(most) requests to a token after APNs answered 410 for it"),
                seen: .loadFigure("\(figures.deadTokenPushes)", worst: []))
        case .throttled:
            let most = expectation.throttledAtMost!
            return ExpectationResult(
                passed: figures.throttled <= most, expected: .loadFigure("at most \(most) answers 429 TooManyRequests"),
                seen: .loadFigure("\(figures.throttled)", worst: []))
        case .pushesPerCall:
            let most = expectation.pushesPerCallAtMost!
            let perCall = figures.calls == 0 ? 0 : Double(figures.requests) / Double(figures.calls)
            return ExpectationResult(
                passed: perCall <= most,
                expected: .loadFigure("at most \(String(format: "%g", most)) requests to APNs per call"),
                seen: .loadFigure(
                    String(format: "%.2f (%d requests for %d calls)", perCall, figures.requests, figures.calls),
                    worst: []))
        case .connections:
            let most = expectation.connectionsAtMost!
            return ExpectationResult(
                passed: figures.connections <= most,
                expected: .loadFigure("at most \(most) connection\(most == 1 ? "" : "s") to APNs"),
                seen: .loadFigure("\(figures.connections)", worst: []))
        case .missedBy:
            let (cause, most) = expectation.missedByAtMost!
            let missed = figures.missedByWord[cause] ?? (0, [])
            let share = figures.calls == 0 ? 0 : Double(missed.count) / Double(figures.calls)
            return ExpectationResult(
                passed: share <= most,
                expected: .loadFigure("at most \(percent(most)) of the load's calls missed by \(cause)"),
                seen: .loadFigure(
                    "\(percent(share)) (\(missed.count) of \(figures.calls))", worst: share <= most ? [] : missed.first)
            )
        }
    }

    static func judge(_ check: ProviderExpectation.Check, of expectation: ProviderExpectation, _ evidence: Evidence)
        -> ExpectationResult
    {
        switch check {
        case .neverPushes:
            // A device token refused for good (410, BadDeviceToken) must never be pushed again ([RESP]).
            let phone = expectation.neverPushes!
            let tokens = evidence.tokens[phone.index] ?? []
            var refused = Set<String>()
            var first: PushRecord?
            var again = 0
            for record in evidence.records {
                guard let token = record.request.deviceToken?.lowercased(), tokens.contains(token) else { continue }
                if refused.contains(token) {
                    again += 1
                    first = first ?? record
                }
                if record.status == 410 || record.rejection?.reason == .badDeviceToken { refused.insert(token) }
            }
            return ExpectationResult(
                passed: again == 0, expected: .noPushAfterRefusal(phone: phone.name),
                seen: .pushesAfterRefusal(count: again, first: first.map { SeenPush($0) }),
                pushes: first.map { [PushReference($0)] } ?? [])
        case .refreshedJWT:
            let refreshed = expectation.refreshedJWT!
            let did = refreshedJWT(evidence)
            return ExpectationResult(
                passed: did == refreshed, expected: .refreshedJWT(refreshed), seen: .jwt(refreshed: did))
        case .retried:
            let retried = expectation.retried!
            let waits = retryWaits(evidence)
            return ExpectationResult(
                passed: waits.count >= retried && waits.allSatisfy { $0 >= minimumBackOff },
                expected: .retries(atLeast: retried, minimumWait: minimumBackOff), seen: .retries(waits: waits))
        case .connectionsAtMost:
            let most = expectation.connectionsAtMost!
            let opened = evidence.openedAt.count
            let refused = evidence.refusals.count
            return ExpectationResult(
                passed: opened + refused <= most, expected: .connections(atMost: most),
                seen: .connections(opened: opened, refusedInHandshake: refused))
        case .stopped:
            let stopped = expectation.stopped!
            if expectation.stoppedNotApplicable {
                // Only the built-in provider can say that it stopped; another's silence is no proof.
                var result = ExpectationResult(
                    passed: true, expected: .stopped(stopped), seen: .notApplicable(key: check.option.key))
                result.verdict = .notApplicable
                return result
            }
            let why = evidence.actions.stoppedBecause
            let passed =
                stopped == "false" ? why == nil : why.map { stopped == "true" || $0.contains(stopped) } ?? false
            return ExpectationResult(
                passed: passed,
                expected: .stopped(stopped), seen: .stopped(because: why))
        case .reconnected:
            let reconnected = expectation.reconnected!
            let resent = evidence.actions.contains {
                if case .resentOnNewConnection = $0 { return true } else { return false }
            }
            let again = resentOnNewConnection(evidence)
            let afterGoAway = sentAfterGoAway(evidence)
            let connections = Set(evidence.records.map(\.connection)).count
            return ExpectationResult(
                passed: (resent || again > 0 || afterGoAway > 0) == reconnected,
                expected: .reconnected(reconnected),
                seen: .reconnections(afterGoAway: afterGoAway, sentAgain: again, connections: connections))
        }
    }

    /// Whether the provider signed a new JWT after APNs answered ExpiredProviderToken, or renewed it
    /// before APNs had to: the built-in provider says so; for others, a later request carries a JWT
    /// issued later than the refused one (its `iat`), or than an earlier one APNs took. The same header and claims signed again — ECDSA signs differently each
    /// time — is the same token, as old as before.
    static func refreshedJWT(_ evidence: Evidence) -> Bool {
        if evidence.actions.contains(.refreshedJWT) { return true }
        var expired: Int64?
        var taken: Int64?
        var renewedOnItsOwn = false
        for record in evidence.records {
            let issuedAt = try? ProviderToken.parse(Substring(providerToken(record.request.authorization))).get()
                .issuedAt
            // A new provider token counts once APNs took it: not refused by the authentication checks.
            let accepted = record.rejection?.check != .authentication
            if let expired, let issuedAt, issuedAt > expired, accepted { return true }
            if record.rejection?.reason == .expiredProviderToken, let issuedAt {
                expired = max(expired ?? issuedAt, issuedAt)
            }
            if accepted, let issuedAt {
                if let taken, issuedAt > taken { renewedOnItsOwn = true }
                taken = max(taken ?? issuedAt, issuedAt)
            }
        }
        // A provider that renews its JWT before it is an hour old (aioapns: every 30 minutes of its
        // clock, which follows the scenario's: ScenarioRunner's ProviderClock) is never told.
        return expired == nil && renewedOnItsOwn
    }

    /// The JWT of an `authorization` header: the scheme is case-insensitive and the spaces around
    /// it do not count (docs/validation.md), so `Bearer X` and `bearer  X` are one JWT.
    static func providerToken(_ authorization: String?) -> String {
        guard let authorization else { return "" }
        let trimmed = authorization.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bearer") else { return trimmed }
        return trimmed.dropFirst("bearer".count).trimmingCharacters(in: .whitespaces)
    }

    /// The shortest wait that counts as backing off: Apple asks for exponential back-off and gives no
    /// numbers; a provider retrying at once is back within tens of milliseconds, even one that starts
    /// a process per push.
    static let minimumBackOff = 0.1

    /// The waits before retries, in order. The built-in provider says how long it meant to wait; for
    /// any other they are read off what the mock saw: the same push (device token and payload) sent again
    /// after a 429 or 5xx answer is a retry, and its wait is the real time since that answer. Another
    /// push to the token (a new call) is not.
    static func retryWaits(_ evidence: Evidence) -> [Double] {
        let intended = evidence.actions.compactMap { action -> Double? in
            if case .retried(_, let after) = action { return after } else { return nil }
        }
        if !intended.isEmpty { return intended }
        var waits: [Double] = []
        var answered: [PushIdentity: Double] = [:]
        for record in evidence.records {
            guard let push = PushIdentity(record, callStarts: evidence.callStarts, paths: evidence.callPaths) else {
                continue
            }
            if let since = answered.removeValue(forKey: push) { waits.append(record.at.wall - since) }
            if record.status == 429 || record.status >= 500 { answered[push] = record.at.wall }
        }
        return waits
    }

    /// Pushes that reached the mock on a new connection after APNs sent GOAWAY on another: what a
    /// provider does that notices the GOAWAY (the pushes past its last stream id never arrived).
    static func sentAfterGoAway(_ evidence: Evidence) -> Int {
        evidence.records.filter { record in
            evidence.goAways.contains { goAway in
                record.connection != goAway.connection && (evidence.openedAt[record.connection] ?? 0) >= goAway.at.wall
            }
        }.count
    }

    /// Pushes (token and payload) that reached the mock on more than one connection.
    static func resentOnNewConnection(_ evidence: Evidence) -> Int {
        var first: [PushIdentity: UInt64] = [:]
        var again = Set<PushIdentity>()
        for record in evidence.records {
            guard let push = PushIdentity(record, callStarts: evidence.callStarts, paths: evidence.callPaths) else {
                continue
            }
            if let connection = first[push] {
                if connection != record.connection { again.insert(push) }
            } else {
                first[push] = record.connection
            }
        }
        return again.count
    }
}

/// One push as a provider would send it again: the device token and the call it announces (its
/// call id; the payload's bytes when it carries none), within one call step (a later call with the
/// same payload is another push). A provider that stamps each attempt (`"sentAt"`) still sends
/// the same push again.
struct PushIdentity: Hashable {
    let token: String
    let payload: [UInt8]
    let call: Int

    init?(_ record: PushRecord, callStarts: [Double], paths: CallPaths? = nil) {
        guard let token = record.request.deviceToken else { return nil }
        self.token = token.lowercased()
        payload =
            CallInfo(body: record.request.body, paths: paths).uuid.map { Array($0.lowercased().utf8) }
            ?? record.request.body
        call = callStarts.lastIndex { $0 <= record.at.wall } ?? -1
    }
}

extension PushRecord {
    /// The answer as a report shows it: `200`, `410 Unregistered`, `400 BadPriority
    /// (voip-lint/priority-not-10)`, or the fault that kept it.
    public var answer: String {
        let notes = self.notes.map { " · note: \($0.rawValue)" }.joined()
        let reason = rejection.map { " \($0.reason.wire)" + ($0.lint.map { " (\($0.name))" } ?? "") } ?? ""
        return status == 0 ? (fault ?? "no answer") : "\(status)\(reason)\(notes)"
    }
}
