import APNs

/// `expect provider:` — what the provider did about APNs's answers. Each check is declared here
/// once: its key, what it takes, when it is judged and whether it expects absence. The runner's
/// judges (Scenario/Judges.swift) switch over `Check`.
public struct ProviderExpectation: ExpectationWithChecks {
    public var label: String
    public var neverPushes: PhoneRef?
    public var retried: Int?
    public var reconnected: Bool?
    public var refreshedJWT: Bool?
    /// At most this many connections to APNs (handshakes refused included) over the whole scenario.
    public var connectionsAtMost: Int?
    /// The built-in provider stopped sending after a permanent failure, saying this (or, with
    /// `stopped: false`, never stopped).
    public var stopped: String?
    /// `stopped` of a requirement run against an exec or http provider, which cannot say it
    /// stopped: reported as not applicable at once.
    public var stoppedNotApplicable = false
    public var within: Double?

    public init(label: String) { self.label = label }

    /// The phone whose tokens `never-pushes` reads.
    public var phone: PhoneRef? { neverPushes }

    public enum Check: Sendable, CaseIterable {
        case neverPushes, refreshedJWT, retried, connectionsAtMost, stopped, reconnected

        public var option: Option {
            switch self {
            case .neverPushes:
                return Option(
                    "never-pushes", .phone, "no push to this phone's tokens after APNs refused them for good")
            case .refreshedJWT: return Option("refreshed-jwt", .boolean, "a new JWT after ExpiredProviderToken")
            case .retried:
                return Option(
                    "retried", .number(0...100),
                    "at least N retries of 429/5xx, each after at least 100 ms (0: none needed, but any must wait)")
            case .connectionsAtMost:
                return Option(
                    "connections-at-most", .number(0...1_000_000), "at most N connections over the whole scenario")
            case .stopped:
                return Option(
                    "stopped", .text, "the built-in provider stopped after a permanent failure, saying this")
            case .reconnected:
                return Option("reconnected", .boolean, "after GOAWAY, pushes went on a new connection")
            }
        }

        /// The field a boolean check reads, nil for the others: `Judging.checks` and `explain expect`
        /// set each through it, so a new boolean check is listed there by its declaration alone.
        public var boolean: WritableKeyPath<ProviderExpectation, Bool?>? {
            switch self {
            case .reconnected: return \.reconnected
            case .refreshedJWT: return \.refreshedJWT
            case .neverPushes, .retried, .connectionsAtMost, .stopped: return nil
            }
        }
    }

    static let within = Option("within", .duration(atMost: 300), "real time to wait")

    static let kind = StepKind(
        "expect provider", "<what>", "what the provider did about APNs's answers",
        options: Check.allCases.map(\.option) + [within]
    ) { $0.lowerExpectProvider($1.argument, $1.block, at: $1.range).map { .expectProvider($0) } }

    /// The checks this expectation asks for, in the order they are judged.
    public var checks: [Check] {
        Check.allCases.filter { check in
            switch check {
            case .neverPushes: return neverPushes != nil
            case .refreshedJWT: return refreshedJWT != nil
            case .retried: return retried != nil
            case .connectionsAtMost: return connectionsAtMost != nil
            case .stopped: return stopped != nil
            case .reconnected: return reconnected != nil
            }
        }
    }

    /// When each check is judged (`Judging`).
    public func judging(_ check: Check) -> Judging {
        switch check {
        case .neverPushes, .connectionsAtMost: return .atEnd
        case .retried: return .whenSettled
        case .reconnected: return reconnected == false ? .afterQuiet : .whenItHolds
        case .refreshedJWT: return refreshedJWT == false ? .afterQuiet : .whenItHolds
        case .stopped: return stopped == "false" && !stoppedNotApplicable ? .afterQuiet : .whenItHolds
        }
    }

    /// Whether a check expects that something did not happen: then it counts only when the
    /// provider pushed in the scenario (a provider that does nothing must not pass it).
    public func expectsAbsence(_ check: Check) -> Bool {
        switch check {
        case .neverPushes, .connectionsAtMost: return true
        // `retried: 0` holds of a provider that never retried: that proves nothing of a silent one.
        case .retried: return retried == 0
        case .reconnected: return reconnected == false
        case .refreshedJWT: return refreshedJWT == false
        case .stopped: return stopped == "false" && !stoppedNotApplicable
        }
    }
}

extension Lowering {
    mutating func lowerExpectProvider(_ argument: Scalar, _ block: Block, at range: SourceRange)
        -> ProviderExpectation?
    {
        typealias Check = ProviderExpectation.Check
        var expectation = ProviderExpectation(label: argument.text)
        if let scalar = scalar(block, Check.neverPushes.option.key) { expectation.neverPushes = phone(scalar) }
        expectation.retried = integer(block, Check.retried.option)
        expectation.reconnected = boolean(block, Check.reconnected.option)
        expectation.refreshedJWT = boolean(block, Check.refreshedJWT.option)
        expectation.connectionsAtMost = integer(block, Check.connectionsAtMost.option)
        let stopped = Check.stopped.option.key
        if let scalar = scalar(block, stopped) {
            // `true` and `false` in any case are the booleans; anything else is text to find.
            let word = scalar.text.lowercased()
            let value = word == "true" || word == "false" ? word : scalar.text
            if scalar.text.allSatisfy({ $0 == " " }) {
                report(
                    "Empty value", at: scalar.range,
                    "<\(stopped)> takes true, false or text to find in what the provider said")
            } else if case .builtin = provider {
                expectation.stopped = value
            } else if runsProviderUnderTest {
                // A requirement's `stopped` cannot be judged of another provider: the runner says so.
                expectation.stopped = value
                expectation.stoppedNotApplicable = true
            } else {
                // Only the built-in provider can say that it stopped; another's silence is not proof.
                report(
                    "Not for this provider", at: scalar.range,
                    "<\(stopped)> is said by the built-in provider; for an exec or http provider expect <\(Check.connectionsAtMost.option.key)> and what APNs saw"
                )
            }
        }
        expectation.within = duration(block, ProviderExpectation.within)
        let checks = Check.allCases.map(\.option.key)
        if !checks.contains(where: block.has) {
            report("Nothing to check", at: range, "<expect provider> needs one of \(checks.joined(separator: ", "))")
            return nil
        }
        return expectation
    }
}
