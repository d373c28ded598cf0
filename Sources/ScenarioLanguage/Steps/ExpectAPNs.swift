import APNs

/// `expect apns:` — what requests the fake APNs saw, or refused in the handshake. Each check is
/// declared here once: its key, what it takes, when it is judged and whether it expects absence.
/// The runner's judges (Scenario/Judges.swift) switch over `Check`.
public struct APNsExpectation: ExpectationWithChecks {
    public var label: String
    public var count: Int?
    public var status: Int?
    public var reason: Reason?
    public var phone: PhoneRef?
    public var header: (name: String, value: String)?
    public var refused: String?
    /// Exactly this many streams refused unprocessed (REFUSED_STREAM) over the whole scenario.
    public var refusedStreams: Int?
    /// The mock sent GOAWAY with this reason (`count`: exactly so many times).
    public var goAway: Reason?
    /// Real time to wait for the requests to arrive (none: judged at once).
    public var within: Double?

    public init(label: String) { self.label = label }

    public enum Check: Sendable, CaseIterable {
        /// Requests that match the filters (`status`, `reason`, `phone`, `header`), `count` of them.
        case requests
        case refused, refusedStreams, goAway

        /// Its own key (requests are judged by the filters and `count`).
        public var option: Option? {
            switch self {
            case .requests: return nil
            case .refused:
                return Option("refused", .text, "a connection refused in the TLS handshake, for this reason")
            case .refusedStreams:
                return Option(
                    "refused-streams", .number(0...1_000_000), "exactly this many streams refused unprocessed")
            case .goAway:
                return Option(
                    "goaway", .reason, "the fake APNs sent GOAWAY with this reason (with count: exactly so many)")
            }
        }
    }

    static let count = Option(
        "count", .number(0...1_000_000), "exactly this many matching requests (without it: at least one)")
    static let within = Option("within", .duration(atMost: 300), "real time to wait for them")
    /// What narrows the requests judged.
    static let requestFilters = [
        Option("status", .number(100...599), "requests answered with this status"),
        Option("reason", .reason, "requests answered with this APNs reason"),
        Option("phone", .phone, "requests to this phone's tokens"),
        Option("header", .text, "requests with this header, \"name: value\""),
    ]
    /// The checks of connections and streams, which judge no request.
    static let connectionChecks = [Check.refused, .refusedStreams].compactMap(\.option?.key)

    static let kind = StepKind(
        "expect apns", "<what>", "what requests the fake APNs saw, or refused in the handshake",
        options: [count] + requestFilters + [within] + Check.allCases.compactMap(\.option)
    ) { $0.lowerExpectAPNs($1.argument, $1.block).map { .expectAPNs($0) } }

    /// The checks it asks for, in the order they are judged: a `goaway` judges no request, and
    /// `refused` or `refused-streams` alone judge none either.
    public var checks: [Check] {
        var checks: [Check] = []
        if refused != nil { checks.append(.refused) }
        if refusedStreams != nil { checks.append(.refusedStreams) }
        if goAway != nil { return checks + [.goAway] }
        let filters = count != nil || status != nil || reason != nil || phone != nil || header != nil
        return filters || checks.isEmpty ? checks + [.requests] : checks
    }

    /// A refused handshake is reported by the server's thread, a moment after the provider saw it
    /// fail: `refused` waits at least this long before it fails (seen: 19-expired-provider-certificate
    /// against `--provider uses-regular-token`, half its runs red without it).
    public static let refusalGrace = 1.0

    public func window(_ check: Check) -> Double? {
        check == .refused ? max(within ?? 0, Self.refusalGrace) : within
    }

    /// A refused handshake is reported by the server's thread after the provider saw it.
    public func settlesWithTheProvider(_ check: Check) -> Bool { check != .refused }

    /// When each check is judged (`Judging`).
    public func judging(_ check: Check) -> Judging {
        switch check {
        case .refused: return .whenItHolds
        case .refusedStreams: return .atEnd
        case .goAway, .requests: return count == nil ? .whenItHolds : .afterQuiet
        }
    }

    /// Whether a check expects that nothing happened: then it counts only when the provider pushed.
    public func expectsAbsence(_ check: Check) -> Bool {
        switch check {
        case .refused: return false
        case .refusedStreams: return refusedStreams == 0
        case .goAway, .requests: return count == 0
        }
    }
}

extension Lowering {
    mutating func lowerExpectAPNs(_ argument: Scalar, _ block: Block) -> APNsExpectation? {
        var expectation = APNsExpectation(label: argument.text)
        expectation.count = integer(block, APNsExpectation.count)
        let statuses = Set([200] + Reason.allCases.map(\.status)).sorted()
        if let scalar = scalar(block, "status"), let status = integer(scalar, key: "status", in: 100...599) {
            if statuses.contains(status) {
                expectation.status = status
            } else {
                report(
                    "Not an APNs status", at: scalar.range,
                    "APNs answers \(statuses.map(String.init).joined(separator: ", ")); got <\(status)>")
            }
        }
        if let scalar = scalar(block, "reason"), let reason = reason(scalar, key: "reason") {
            expectation.reason = reason
            if let status = expectation.status, status != reason.status {
                report(
                    "Never happens", at: scalar.range,
                    "APNs answers \(reason.wire) with status \(reason.status), not \(status)")
            }
        }
        if let scalar = scalar(block, "phone") {
            guard let phone = phone(scalar) else { return nil }
            expectation.phone = phone
        }
        if let scalar = scalar(block, "header") {
            // A pseudo-header (`:path`) starts with the colon that other names end with.
            let pseudo = scalar.text.hasPrefix(":")
            let parts = scalar.text.dropFirst(pseudo ? 1 : 0).split(
                separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = (pseudo ? ":" : "") + parts[0].trimmingSpaces.lowercased()
            let isToken =
                !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_:".contains($0)) }
            if parts.count == 2, isToken {
                expectation.header = (name, String(parts[1].trimmingSpaces))
            } else {
                report(
                    "Not a header", at: scalar.range,
                    "<header> takes <\"name: value\">, e.g. <\"apns-priority: 10\">; got <\(clip(scalar.text))>")
            }
        }
        let refused = APNsExpectation.Check.refused.option!.key
        if let scalar = scalar(block, refused) {
            if scalar.text.allSatisfy({ $0 == " " }) {
                report(
                    "Empty value", at: scalar.range,
                    "<\(refused)> takes text to find in the handshake's refusal, e.g. <unknown ca>")
            } else {
                expectation.refused = scalar.text
            }
        }
        expectation.refusedStreams = integer(block, APNsExpectation.Check.refusedStreams.option!)
        let goAway = APNsExpectation.Check.goAway.option!.key
        expectation.goAway = scalar(block, goAway).flatMap { reason($0, key: goAway) }
        // A GOAWAY is no request: what judges requests would be ignored beside it.
        if block.has(goAway) {
            for key in APNsExpectation.requestFilters.map(\.key) + APNsExpectation.connectionChecks {
                guard let entry = block.entry(key) else { continue }
                report(
                    "Not with goaway", at: entry.keyRange,
                    "<\(key)> judges requests; <\(goAway)> judges the GOAWAYs the mock sent (only <count> and <within> go with it)"
                )
            }
        }
        expectation.within = duration(block, APNsExpectation.within)
        return expectation
    }
}
