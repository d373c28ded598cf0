import APNs
import World

/// A fault to arm; `phone` narrows it to that phone's token (of the app and kind it registered
/// last, else its first app's VoIP token) when it is armed.
public struct FaultStep: Sendable {
    public var spec: FaultSpec
    public var phone: PhoneRef?
    public var app: String = ScenarioPlan.testBundleId
    public var kind: TokenKind = .voip
    /// `at:` — armed this many seconds after the first call of the scenario's load, not at its line
    /// (a fault on the load's timeline, issue 48).
    public var at: Double?
    /// `lasting:` — applies to every matching request for this long from when it is armed, instead
    /// of to `count` requests (a 503 storm: a provider's careful back-off must not end it sooner).
    public var lasting: Double?

    static let count = Option("count", .number(FaultSpec.counts), "how many requests it applies to")
    static let afterAccepted = Option(
        "after-accepted", .number(FaultSpec.counts), "GOAWAY after this many accepted pushes")
    static let seconds = Option(
        "seconds", .duration(atMost: FaultSpec.seconds.upperBound),
        "delay: how late; stale-connections: the idle time after which a connection answers 500; hold-settings: how long new connections wait for SETTINGS"
    )

    static let at = Option(
        "at", .duration(atMost: LoadPlan.longest),
        "armed this long after the first call of the scenario's load (a `load` step after it), e.g. 10s")
    static let lasting = Option(
        "lasting", .duration(atMost: LoadPlan.longest),
        "every matching request for this long, instead of a count (a storm), e.g. 5s")

    static let kind = StepKind(
        "fault", "<APNs reason or action>", "the fake APNs misbehaves: an answer, a drop, a delay, a GOAWAY …",
        options: [
            count, Option("phone", .phone, "only requests to this phone's token"), afterAccepted, seconds,
            Option("reason", .reason, "the GOAWAY's reason (default Shutdown)"), at, lasting,
        ]
    ) { $0.lowerFault($1.argument, $1.block).map { .fault($0) } }

    /// Which options each fault action takes (an APNs reason as the step's value means `answer`).
    public static func options(_ action: FaultSpec.Action) -> [String] {
        switch action {
        case .answer, .drop: return ["count", "phone", "at", "lasting"]
        case .delay: return ["count", "phone", "seconds", "at", "lasting"]
        case .goaway: return ["after-accepted", "phone", "reason", "at"]
        case .staleConnections, .holdSettings: return ["seconds"]
        case .lowerStreamsAfterRejection, .untrustedServerCertificate: return []
        }
    }
}

extension Lowering {
    mutating func lowerFault(_ argument: Scalar, _ block: Block) -> FaultStep? {
        let action: FaultSpec.Action
        var answer: Reason?
        if let named = FaultSpec.Action(rawValue: argument.text), named != .answer {
            action = named
        } else if let reason = Reason(rawValue: argument.text) {
            action = .answer
            answer = reason
        } else {
            let words = Reason.allCases.map(\.wire) + FaultSpec.Action.allCases.filter { $0 != .answer }.map(\.rawValue)
            report(
                "Unknown fault", at: argument.range,
                argument.text == "answer"
                    ? "write the APNs reason to answer with, e.g. <fault: ServiceUnavailable>"
                    : "<\(clip(argument.text))> is neither an APNs reason nor a fault action",
                suggestion: Reason(wire: argument.text)?.wire ?? didYouMean(argument.text, among: words))
            // Its options are still read, so that every problem shows at once.
            _ = integer(block, FaultStep.count)
            _ = integer(block, FaultStep.afterAccepted)
            _ = duration(block, FaultStep.seconds)
            _ = scalar(block, "phone").flatMap { self.phone($0) }
            return nil
        }
        let allowed = FaultStep.options(action)
        for entry in block.mapping.entries where block.keys.contains(entry.key) && !allowed.contains(entry.key) {
            report(
                "Not for this fault", at: entry.keyRange,
                allowed.isEmpty
                    ? "<\(argument.text)> takes no options"
                    : "<\(entry.key)> does not apply to <\(argument.text)>; it takes \(allowed.joined(separator: ", "))"
            )
        }
        let count = allowed.contains("count") ? integer(block, FaultStep.count) ?? 1 : 1
        let phone = allowed.contains("phone") ? scalar(block, "phone").flatMap { self.phone($0) } : nil
        let registered = phone.flatMap { latestRegistration(of: $0.index, app: nil, remove: false) }
        let kind: FaultSpec.Kind
        switch action {
        case .answer: kind = .answer(answer ?? .serviceUnavailable)
        case .drop: kind = .drop
        case .delay:
            guard let seconds = requiredDuration(block, "seconds", for: argument, atMost: FaultSpec.seconds.upperBound)
            else { return nil }
            kind = .delay(seconds: seconds)
        case .goaway:
            let after = integer(block, FaultStep.afterAccepted) ?? 1
            // APNs may send any reason as GOAWAY debug data (docs/apns-facts.md §6.2); Shutdown by default.
            let why = scalar(block, "reason").flatMap { reason($0, key: "reason") } ?? .shutdown
            kind = .goAway(afterAccepted: after, reason: why)
        case .staleConnections:
            guard let seconds = requiredDuration(block, "seconds", for: argument, atMost: FaultSpec.seconds.upperBound)
            else { return nil }
            kind = .staleConnections(idleSeconds: seconds)
        case .holdSettings:
            guard
                let seconds = requiredDuration(
                    block, "seconds", for: argument, atMost: FaultSpec.heldSettings.upperBound)
            else { return nil }
            kind = .holdSettings(seconds: seconds)
        case .lowerStreamsAfterRejection: kind = .lowerStreamsAfterRejection(on: true)
        case .untrustedServerCertificate:
            if cleartext {
                report(
                    "Needs TLS", at: argument.range,
                    "a cleartext mock (<transport: cleartext>) has no certificate to change")
                return nil
            }
            kind = .untrustedServerCertificate(on: true)
        }
        var step = FaultStep(spec: FaultSpec(kind, count: count), phone: phone)
        if allowed.contains("lasting"), let lasting = duration(block, FaultStep.lasting) {
            if block.has("count") {
                report(
                    "Count and lasting", at: block.node("lasting")?.range ?? argument.range,
                    "a fault applies to <count> requests or to every request while it <lasting>, not both")
            }
            step.lasting = lasting
            step.spec.count = FaultSpec.counts.upperBound
        }
        if allowed.contains("at"), let at = duration(block, FaultStep.at) {
            step.at = at
            timedFaults.append((block.node("at")?.range ?? argument.range, at))
        }
        if let phone {
            step.app = registered?.app ?? (appsOfPhone[phone.index]?.first ?? ScenarioPlan.testBundleId)
            step.kind = .voip
            guard isInstalled(step.app, on: phone, at: block.node("phone")?.range ?? argument.range) else { return nil }
        }
        return step
    }

    mutating func requiredDuration(_ block: Block, _ key: String, for argument: Scalar, atMost limit: Double) -> Double?
    {
        guard block.has(key) else {
            report("Missing key", at: argument.range, "<\(argument.text)> needs <\(key)>, e.g. <\(key): 2s>")
            return nil
        }
        return duration(block, key, atMost: limit)
    }
}
