import APNs
import World

/// `load:` — a population of phones registered with the provider, then calls placed at a rate, in
/// real time (issue 48): the incidents at production scale. Always bounded in calls and in time,
/// and only ever against the scenario's own mock on loopback.
public struct LoadPlan: Sendable {
    public var label: String
    /// How many phones, generated (`load-1` … `load-N`, one app each), each registered for its own user.
    public var phones = 100
    /// Shares of the population, from 0 to 1, drawn with the scenario's seed.
    public var offline = 0.0
    /// Registered with the provider, then uninstalled before the first call: tokens the provider
    /// still holds, answered 410 after the world's `unregister-delay`.
    public var uninstalled = 0.0
    public var doNotDisturb = 0.0
    /// Apps that never report a VoIP push (iOS cuts them off after `unreported-limit`).
    public var neverReports = 0.0
    public var calls = 100
    /// Calls placed per second: `rate` from the first call to the last, or a ramp from `rate` to
    /// `rampTo` over `rampSeconds`, then `rampTo`.
    public var rate = 50.0
    public var rampTo: Double?
    public var rampSeconds = 0.0
    /// The share of calls that go to one user (`load-1`, whose phone is reachable): a hot user;
    /// the others are drawn uniformly.
    public var hotUser = 0.0

    public init(label: String) { self.label = label }

    /// When call `index` is placed, in seconds after the first.
    public func offset(ofCall index: Int) -> Double {
        guard let end = rampTo, rampSeconds > 0 else { return Double(index) / rate }
        // Calls placed during the ramp: ∫ rate(t) dt with rate(t) linear from `rate` to `end`.
        let slope = (end - rate) / rampSeconds
        let duringRamp = rate * rampSeconds + slope * rampSeconds * rampSeconds / 2
        let count = Double(index)
        if count >= duringRamp { return rampSeconds + (count - duringRamp) / end }
        if abs(slope) < 1e-9 { return count / rate }
        return (-rate + (rate * rate + 2 * slope * count).squareRoot()) / slope
    }

    /// How long placing every call takes.
    public var seconds: Double { calls > 0 ? offset(ofCall: calls - 1) : 0 }

    static let longest = 600.0
    static let shares = ["offline", "uninstalled", "do-not-disturb", "never-reports", "hot-user"]

    static let kind = StepKind(
        "load", "<label>", "a population registered with the provider, then calls at a rate, in real time",
        options: [
            Option("phones", .number(1...1_000_000), "how many phones, generated and each registered for its user"),
            Option("calls", .number(1...10_000_000), "how many calls, each to one user of the population"),
            Option("rate", .text, "calls per second, e.g. 200/s (at most 100000/s)"),
            Option("ramp", .text, "calls per second rising to this rate over a time, e.g. 500/s over 10s"),
            Option("offline", .share, "the share of phones offline all along"),
            Option(
                "uninstalled", .share,
                "the share of phones whose app is uninstalled after registering: tokens the provider still holds"),
            Option("do-not-disturb", .share, "the share of phones in a Focus that silences calls"),
            Option("never-reports", .share, "the share of apps that never report a VoIP push"),
            Option("hot-user", .share, "the share of calls to one user (load-1); the rest are drawn uniformly"),
        ]
    ) { $0.lowerLoad($1.argument, $1.block, at: $1.range).map { .load($0) } }
}

/// `expect load:` — what held over all the load's calls, judged once the provider has settled
/// after the last one. A failure quotes the figure beside the threshold and the worst calls.
public struct LoadExpectation: ExpectationWithChecks {
    public var label: String
    /// The share of all the load's calls that rang in time, at least this (0 to 1).
    public var rangAtLeast: Double?
    /// Ring latency from the call, over the calls that rang: percentile → at most seconds.
    public var ringLatencyAtMost: [(percentile: Int, seconds: Double)] = []
    /// Requests to a device token after APNs answered 410 for it, at most.
    public var deadTokenPushesAtMost: Int?
    /// 429 TooManyRequests answers, at most.
    public var throttledAtMost: Int?
    /// Requests to APNs per call, on average, at most (retries and pushes to every device count).
    public var pushesPerCallAtMost: Double?
    /// Connections to APNs over the load, at most.
    public var connectionsAtMost: Int?
    /// The share of the load's calls missed by one cause (`LoadExpectation.causes`), at most.
    public var missedByAtMost: (cause: String, share: Double)?
    public var within: Double? { nil }
    public var phone: PhoneRef? { nil }

    public init(label: String) { self.label = label }

    public enum Check: Sendable, CaseIterable {
        case rang, ringP50, ringP95, ringP99, deadTokenPushes, throttled, pushesPerCall, connections, missedBy

        public var option: Option {
            switch self {
            case .rang:
                return Option("rang-at-least", .share, "the share of the load's calls that rang in time")
            case .ringP50:
                return Option("ring-p50-at-most", .duration(atMost: 600), "the median ring latency from the call")
            case .ringP95: return Option("ring-p95-at-most", .duration(atMost: 600), "the 95th percentile ring latency")
            case .ringP99: return Option("ring-p99-at-most", .duration(atMost: 600), "the 99th percentile ring latency")
            case .deadTokenPushes:
                return Option(
                    "dead-token-pushes-at-most", .number(0...10_000_000),
                    "requests to a device token after APNs answered 410 for it, for calls placed once the provider was done with the call that got it"
                )
            case .throttled:
                return Option("throttled-at-most", .number(0...10_000_000), "429 TooManyRequests answers")
            case .pushesPerCall:
                return Option(
                    "pushes-per-call-at-most", .text,
                    "requests to APNs per call on average, e.g. 1.2 (retries and every device of the callee count)")
            case .connections:
                return Option("connections-at-most", .number(0...1_000_000), "connections to APNs over the load")
            case .missedBy:
                return Option(
                    "missed-by-at-most", .text,
                    "the share of the load's calls missed by one cause, e.g. <no-push 1%> or <offline 10%>")
            }
        }

        /// The percentile a latency check reads.
        public var percentile: Int? {
            switch self {
            case .ringP50: 50
            case .ringP95: 95
            case .ringP99: 99
            case .rang, .deadTokenPushes, .throttled, .pushesPerCall, .connections, .missedBy: nil
            }
        }
    }

    public var checks: [Check] {
        Check.allCases.filter { check in
            switch check {
            case .rang: return rangAtLeast != nil
            case .ringP50, .ringP95, .ringP99:
                return ringLatencyAtMost.contains { $0.percentile == check.percentile }
            case .deadTokenPushes: return deadTokenPushesAtMost != nil
            case .throttled: return throttledAtMost != nil
            case .pushesPerCall: return pushesPerCallAtMost != nil
            case .connections: return connectionsAtMost != nil
            case .missedBy: return missedByAtMost != nil
            }
        }
    }

    /// Over all the calls: at the scenario's end, once the provider has settled.
    public func judging(_ check: Check) -> Judging { .atEnd }

    public func expectsAbsence(_ check: Check) -> Bool {
        switch check {
        case .deadTokenPushes, .throttled, .pushesPerCall, .connections, .missedBy: return true
        case .rang, .ringP50, .ringP95, .ringP99: return false
        }
    }

    /// What a missed call can be missed by: `no-push` (none reached its phone), an outcome
    /// (`not-delivered`, `app-killed` …) or its reason (`low-priority` …), or the callee's share
    /// of the population (`offline`, `uninstalled` …).
    public static let causes: [String] = {
        var words = ["no-push"] + RingOutcome.Kind.allCases.filter { $0 != .rang }.map(\.rawValue)
        words += RingOutcome.Kind.allCases.flatMap(\.reasons)
        words += ["offline", "uninstalled", "do-not-disturb", "never-reports"]
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }()

    static let kind = StepKind(
        "expect load", "<label>", "what held over all the calls of the scenario's load: shares, percentiles, counts",
        options: Check.allCases.map(\.option)
    ) { $0.lowerExpectLoad($1.argument, $1.block, at: $1.range).map { .expectLoad($0) } }
}

/// `12.5%` → 0.125; nil when malformed or outside 0–100%.
public func parseShare(_ text: String) -> Double? {
    guard text.hasSuffix("%"), text.utf8.count <= 12 else { return nil }
    let number = text.dropLast()
    guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
        let value = Double(number), (0...100).contains(value)
    else { return nil }
    return value / 100
}

/// `200/s` → 200; nil when malformed or outside 1–100,000 a second.
public func parseCallRate(_ text: String) -> Double? {
    guard text.hasSuffix("/s"), text.utf8.count <= 16 else { return nil }
    let number = text.dropLast(2)
    guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
        let value = Double(number), (0.01...100_000).contains(value)
    else { return nil }
    return value
}

extension Lowering {
    mutating func share(_ block: Block, _ key: String) -> Double? {
        guard let scalar = scalar(block, key) else { return nil }
        if let value = parseShare(scalar.text) { return value }
        report(
            "Not a share", at: scalar.range,
            "<\(key)> takes a percentage from 0% to 100%, like 5%; got <\(clip(scalar.text))>")
        return nil
    }

    mutating func lowerLoad(_ argument: Scalar, _ block: Block, at range: SourceRange) -> LoadPlan? {
        var plan = LoadPlan(label: argument.text)
        if loadCount > 0 {
            report("Second load", at: range, "a scenario runs one load; its `expect load` lines judge it")
        }
        loadCount += 1
        // The timed faults written before it are on its timeline.
        let timed = timedFaults
        timedFaults = []
        plan.phones = integer(block, "phones", in: 1...1_000_000) ?? plan.phones
        plan.calls = integer(block, "calls", in: 1...10_000_000) ?? plan.calls
        if let scalar = scalar(block, "rate") {
            if let rate = parseCallRate(scalar.text) {
                plan.rate = rate
            } else {
                report(
                    "Not a rate", at: scalar.range,
                    "<rate> takes calls per second like <200/s>, at most 100000/s; got <\(clip(scalar.text))>")
            }
        }
        if let scalar = scalar(block, "ramp") {
            let parts = scalar.text.split(separator: " ")
            if parts.count == 3, parts[1] == "over", let end = parseCallRate(String(parts[0])),
                let seconds = parseDuration(String(parts[2])), seconds > 0, seconds <= LoadPlan.longest
            {
                plan.rampTo = end
                plan.rampSeconds = seconds
            } else {
                report(
                    "Not a ramp", at: scalar.range,
                    "<ramp> takes <RATE over DURATION> like <500/s over 10s>, from <rate> to that; got <\(clip(scalar.text))>"
                )
            }
        }
        plan.offline = share(block, "offline") ?? 0
        plan.uninstalled = share(block, "uninstalled") ?? 0
        plan.doNotDisturb = share(block, "do-not-disturb") ?? 0
        plan.neverReports = share(block, "never-reports") ?? 0
        plan.hotUser = share(block, "hot-user") ?? 0
        if plan.offline + plan.uninstalled + plan.doNotDisturb + plan.neverReports > 1 {
            report(
                "Too many shares", at: range,
                "<offline>, <uninstalled>, <do-not-disturb> and <never-reports> are shares of one population: at most 100% together"
            )
        }
        if plan.seconds > LoadPlan.longest {
            report(
                "Too long", at: range,
                "\(plan.calls) calls at this rate take \(Int(plan.seconds)) s; a load lasts at most \(Int(LoadPlan.longest)) s"
            )
        }
        for fault in timed where fault.at > plan.seconds {
            report(
                "After the load", at: fault.range,
                "the load places its last call \(String(format: "%g", plan.seconds)) s after its first; a fault armed at \(String(format: "%g", fault.at)) s would meet none of its calls"
            )
        }
        return plan
    }

    mutating func lowerExpectLoad(_ argument: Scalar, _ block: Block, at range: SourceRange) -> LoadExpectation? {
        typealias Check = LoadExpectation.Check
        if loadCount == 0 {
            report("No load", at: range, "<expect load> judges the scenario's `load` step, which must come before it")
        }
        var expectation = LoadExpectation(label: argument.text)
        expectation.rangAtLeast = share(block, Check.rang.option.key)
        for check in Check.allCases {
            guard let percentile = check.percentile, let seconds = duration(block, check.option) else { continue }
            expectation.ringLatencyAtMost.append((percentile, seconds))
        }
        expectation.deadTokenPushesAtMost = integer(block, Check.deadTokenPushes.option)
        expectation.throttledAtMost = integer(block, Check.throttled.option)
        expectation.connectionsAtMost = integer(block, Check.connections.option)
        if let scalar = scalar(block, Check.missedBy.option.key) {
            let parts = scalar.text.split(separator: " ").map(String.init)
            if parts.count == 2, LoadExpectation.causes.contains(parts[0]), let share = parseShare(parts[1]) {
                expectation.missedByAtMost = (parts[0], share)
            } else if parts.count == 2, parseShare(parts[1]) != nil {
                report(
                    "Unknown cause", at: scalar.range,
                    "<\(clip(parts[0]))> is not a cause a call is missed by; one of \(LoadExpectation.causes.joined(separator: ", "))",
                    suggestion: didYouMean(parts[0], among: LoadExpectation.causes))
            } else {
                report(
                    "Not a cause and a share", at: scalar.range,
                    "<\(Check.missedBy.option.key)> takes a cause and a share, like <no-push 1%>; got <\(clip(scalar.text))>"
                )
            }
        }
        if let scalar = scalar(block, Check.pushesPerCall.option.key) {
            if scalar.text.utf8.count <= 8, scalar.text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let value = Double(scalar.text), (0...1000).contains(value)
            {
                expectation.pushesPerCallAtMost = value
            } else {
                report(
                    "Not a number", at: scalar.range,
                    "<\(Check.pushesPerCall.option.key)> takes a number from 0 to 1000, like 1.2; got <\(clip(scalar.text))>"
                )
            }
        }
        if expectation.checks.isEmpty {
            report(
                "Nothing to expect", at: range,
                "<expect load> needs at least one of \(Check.allCases.map(\.option.key).joined(separator: ", "))")
            return nil
        }
        return expectation
    }
}
