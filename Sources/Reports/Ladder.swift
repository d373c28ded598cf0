import APNs
import MockAPNs
import Provider
import Scenario
import World

/// The report's sequence diagram, drawn from what a scenario recorded (`ScenarioResult.Recording`)
/// and its verdicts: connections, SETTINGS, requests (retries with their wait) and answers, GOAWAYs
/// and refusals from what the mock saw; each push's story on the phone's and the app's lifelines;
/// world-clock jumps; failed expectations when they were judged. The runner judges; this draws.
public enum Ladder {
    /// One message of the sequence diagram: provider ↔ APNs ↔ phone ↔ the app, at a world time.
    public struct LadderEvent: Sendable {
        public enum Party: String, Sendable, CaseIterable { case provider, apns, phone, app }
        /// What the message is, for the diagram's look and filters.
        public enum Kind: String, Sendable {
            case connection, settings, request, answer, goaway, refused, closed, delivery, phone, expectation
            case clockJump = "clock-jump"
            /// A step of the scenario (register, call, fault, …) at the moment it was taken.
            case step
        }
        public var at: Double
        public var from: Party
        public var to: Party
        public var label: String
        public var failed: Bool
        public var kind: Kind = .phone
        /// The connection it travelled on, if any.
        public var connection: UInt64? = nil
        /// Its explanation, line by line (what `ringside explain` says of its headers or reason).
        public var details: [String] = []
        /// The scenario line it is about (a step, a failed expectation).
        public var line: Int? = nil
        /// The request field APNs refused (a request whose answer was a refusal): the report marks it.
        public var refusedField: String? = nil
    }

    /// One push's story on the phone, for the report to show under the diagram.
    public struct CallStory: Sendable {
        public var phone: String
        public var callUUID: String?
        /// The `call` step's line, if a scenario call sent it.
        public var line: Int?
        public var outcome: String
        /// Each link of the chain, with its rule: accepted, stored, handed to the app, reported, rang.
        public var steps: [(text: String, rule: String?)]
    }

    /// The sequence diagram: connections, SETTINGS, requests (retries with their wait) and answers,
    /// GOAWAYs and refusals from what the mock saw; each push's story on the phone's and the app's
    /// lifelines; world-clock jumps; failed expectations when they were judged.
    public static func events(of result: ScenarioResult) -> [LadderEvent] {
        let recording = result.recording
        let actions = recording.actions
        let stepMarks = recording.steps
        var events: [LadderEvent] = []
        // The latest 429/5xx (or unanswered) request of each token and payload, to name retries.
        var lastFailure: [String: Double] = [:]
        // The built-in provider says what it meant to wait; the runner shortens its sleeps.
        var intended = actions.compactMap { action -> Double? in
            if case .retried(_, let after) = action { return after } else { return nil }
        }[...]
        for event in recording.events {
            switch event {
            case .connectionOpened(let connection, _, let alpn, let authentication, let at):
                events.append(
                    .init(
                        at: at.world, from: .provider, to: .apns,
                        label:
                            "connection \(connection) opened: TLS, ALPN \(alpn ?? "none"), \(authentication) authentication",
                        failed: false, kind: .connection, connection: connection))
            case .settings(let connection, let streams, let why, let at):
                events.append(
                    .init(
                        at: at.world, from: .apns, to: .provider, label: "SETTINGS MAX_CONCURRENT_STREAMS=\(streams)",
                        failed: false, kind: .settings, connection: connection, details: [why]))
            case .push(let record):
                let request = record.request
                // The path as sent, the token shortened: a wrong path is shown as it was.
                let path =
                    request.deviceToken.map { "/3/device/" + $0.prefix(6) + "…" }
                    ?? String((request.path ?? "?").prefix(48))
                let key = (request.deviceToken ?? "") + String(decoding: request.body, as: UTF8.self)
                var label = "\(request.method ?? "?") \(path) \(request.pushType ?? "")"
                if let failedAt = lastFailure[key] {
                    let waited = String(format: "%.2f s", record.at.wall - failedAt)
                    if let meant = intended.popFirst() {
                        // Shortened outside a load (ScenarioRunner caps a scenario's back-off); a
                        // load sleeps it whole.
                        let shortened = record.at.wall - failedAt < meant - 0.01 ? ", shortened by the harness" : ""
                        label =
                            String(
                                format: "retry (the provider's back-off: %.2f s; waited \(waited)\(shortened)): ",
                                meant) + label
                    } else {
                        label = "retry after \(waited): " + label
                    }
                }
                if record.status == 0 || record.status == 429 || record.status >= 500 {
                    lastFailure[key] = record.at.wall
                } else {
                    lastFailure[key] = nil
                }
                label += " · stream \(record.streamId)"
                // How long after the step that drove it the request came: the provider's own latency.
                if let step = stepMarks.last(where: { $0.drivesProvider && $0.at <= record.at.world }) {
                    label += " · " + Self.milliseconds(record.at.world - step.at) + " after line \(step.line)"
                }
                events.append(
                    .init(
                        at: record.at.world, from: .provider, to: .apns, label: label, failed: false, kind: .request,
                        connection: record.connection, details: Self.explained(request),
                        refusedField: record.rejection?.header))
                var answer = [String]()
                if let rejection = record.rejection {
                    answer = [
                        "\(rejection.reason.status) \(rejection.reason.wire): \(rejection.explanation)",
                        "what to do: \(rejection.whatToDo)", "here: \(rejection.detail)",
                    ]
                } else if record.status == 200 {
                    answer = ["200: accepted, apns-id \(record.apnsId); accepted is not delivered"]
                }
                if let fault = record.fault { answer.append("fault: \(fault)") }
                answer += record.notes.map { "voip-lint note \($0.rawValue)" }
                if record.status != 0 || record.rejection != nil {
                    var label = "\(record.answer) · stream \(record.streamId)"
                    if let fault = record.fault, fault.hasPrefix("answered after") { label += " · " + fault }
                    events.append(
                        .init(
                            at: record.at.world, from: .apns, to: .provider, label: label,
                            failed: record.status >= 400, kind: .answer, connection: record.connection, details: answer)
                    )
                }
            case .goAway(let connection, let last, let reason, let at):
                events.append(
                    .init(
                        at: at.world, from: .apns, to: .provider,
                        label: "GOAWAY \(reason.wire), last stream \(last.map(String.init) ?? "?")", failed: true,
                        kind: .goaway, connection: connection, details: [reason.explanation, reason.whatToDo]))
            case .connectionRefused(_, let why, let at):
                // An alert from the peer means the provider refused the mock's certificate (an impostor
                // server); otherwise the mock refused the provider's (an expired client certificate).
                let byProvider = why.contains("alert")
                events.append(
                    .init(
                        at: at.world, from: byProvider ? .provider : .apns, to: byProvider ? .apns : .provider,
                        label: byProvider ? "the provider refused the TLS handshake" : "APNs refused the TLS handshake",
                        failed: true, kind: .refused, details: [why]))
            case .streamRefused(let connection, let stream, let why, let at):
                events.append(
                    .init(
                        at: at.world, from: .apns, to: .provider, label: "RST_STREAM \(stream) REFUSED_STREAM",
                        failed: true, kind: .refused, connection: connection, details: [why]))
            case .connectionClosed(let connection, let why, let at):
                events.append(
                    .init(
                        at: at.world, from: .apns, to: .apns, label: "connection \(connection) closed", failed: false,
                        kind: .closed, connection: connection, details: [why]))
            case .outcome: break
            }
        }
        for step in stepMarks {
            events.append(
                .init(
                    at: step.at, from: .provider, to: .provider, label: step.text, failed: false, kind: .step,
                    line: step.line))
        }
        let fates = recording.fates
        for fate in fates {
            if let delivered = fate.deliveredAt {
                events.append(
                    .init(
                        at: delivered, from: .apns, to: .phone, label: "VoIP push \(fate.callUUID ?? "")",
                        failed: false,
                        kind: .delivery))
            }
            for event in fate.chain {
                guard let rule = event.step.rule, rule != .accepted else { continue }
                let (from, to) = Self.lanes(rule)
                let failed = Self.failing.contains(rule)
                events.append(
                    .init(
                        at: event.at, from: from, to: to, label: event.step.text(for: fate), failed: failed,
                        kind: .phone, details: ["rule \(rule.rawValue): \(rule.summary)"]))
            }
        }
        for jump in recording.clockJumps {
            events.append(
                .init(
                    at: jump.at, from: .provider, to: .app, label: "\(Self.duration(jump.seconds)) later",
                    failed: false,
                    kind: .clockJump, line: jump.line))
        }
        for expectation in result.expectations where !expectation.passed {
            events.append(
                .init(
                    at: expectation.at ?? recording.endedAt, from: .provider, to: .phone,
                    label:
                        "✘ line \(expectation.range.start.line): expected \(expectation.expected); happened: \(expectation.happened)",
                    failed: true, kind: .expectation, details: expectation.chain, line: expectation.range.start.line))
        }
        // A stable sort: events at the same moment keep the order they happened in.
        return events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// Every push the world saw, with its chain (PushKit → the app → CallKit), for the report to
    /// show under the diagram.
    public static func calls(of result: ScenarioResult) -> [CallStory] {
        result.recording.fates.map { fate in
            CallStory(
                phone: fate.phoneName ?? "no phone", callUUID: fate.callUUID,
                line: fate.callUUID.flatMap { result.recording.callLines[$0] },
                outcome: fate.outcome.kind + (fate.outcome.reason.map { " (\($0))" } ?? ""),
                steps: fate.chain.map { ($0.step.text(for: fate), $0.step.rule?.rawValue) })
        }
    }

    /// Where a rule of the story happens: APNs stores, PushKit hands over, the app reports, CallKit rings.
    static func lanes(_ rule: PhoneRule) -> (LadderEvent.Party, LadderEvent.Party) {
        switch rule {
        case .tokenRetired, .expirationZeroNotStored, .storedWhileOffline, .storedKeepsOldest, .storedReplacedByNewer,
            .storedExpired, .deliveredWhenBackOnline, .lowPriorityMissed, .noPushTypeMissed:
            return (.apns, .apns)
        case .handedToApp: return (.phone, .app)
        case .reportedToCallKit, .reportedToLiveCommunicationKit: return (.app, .phone)
        case .killedWhenDelegateReturned, .killedByCallServices: return (.phone, .app)
        case .rang, .rangLate, .doNotDisturb, .blockedCaller, .unentitled, .duplicateCall, .appNotInstalled,
            .regularNotification, .deliveryBlocked, .deliveryStoppedAfterKills, .forceQuit, .dailyVoIPBudget:
            return (.phone, .phone)
        case .accepted, .completionBeforeReport, .payloadNotWellFormed, .appNeverReports, .blockingRoundTrip,
            .asyncRoundTrip, .beforeIOS13, .ios13MustReport, .mustReportTrue, .noReportInForeground,
            .noReportDuringCall,
            .noReportAfterNetworkDelay, .notReportedAllowed, .frameworkUnavailable:
            return (.app, .app)
        }
    }

    /// Steps of a story that mean the call did not ring as it should.
    static let failing = PhoneRule.failures

    /// Each header of a request, with what it means to APNs (`ringside explain HEADER`).
    static func explained(_ request: PushRequest) -> [String] {
        var lines: [String] = []
        for entry in HeaderVocabulary.entries {
            guard var value = request.header(named: entry.name) else { continue }
            if entry.name == "authorization" { value = String(value.prefix(24)) + "…" }
            lines.append("\(entry.name): \(value) — \(entry.meaning)")
        }
        lines += request.otherHeaders.map { "\($0.name): \($0.value)" }
        if request.bodyLength > 0 {
            lines.append(
                "body (\(request.bodyLength) bytes): \(String(decoding: request.body.prefix(300), as: UTF8.self))")
        }
        return lines
    }

    static func milliseconds(_ seconds: Double) -> String {
        seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%.2f s", seconds)
    }

    static func duration(_ seconds: Double) -> String {
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 {
            return "\(Int(seconds / 86_400)) d"
        }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600)) h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) min" }
        return String(format: "%g s", seconds)
    }
}
