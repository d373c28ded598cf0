import APNs
import World

/// `expect phone:` — how the latest push to a phone (or of a named call) ended. Declared here once:
/// its keys, what they take, and when it is judged. The runner's judge is in Scenario/Judges.swift.
public struct PhoneExpectation: Sendable {
    public var phone: PhoneRef
    public var outcome: RingOutcome.Kind
    public var reason: String?
    public var call: String?
    public var within: Double
    /// Rules the push's story must show (`ringside explain rules`), in any order.
    public var rules: [PhoneRule] = []

    public init(phone: PhoneRef, outcome: RingOutcome.Kind, within: Double) {
        self.phone = phone
        self.outcome = outcome
        self.within = within
    }

    /// How long a push may take to end when `within` is not said: the phone's 50 ms delivery and the
    /// app's report, with room for a loaded machine.
    static let defaultWithin = 2.0
    static let within = Option("within", .duration(atMost: 300), "real time to wait for the push to end (default 2s)")

    static let kind = StepKind(
        "expect phone", "<phone>", "how the latest push to a phone (or of a named call) ended, and by which rules",
        options: [
            Option(
                "outcome", .choice(RingOutcome.Kind.allCases.map(\.rawValue)),
                "rang, rang-late, not-delivered, app-killed, call-refused or duplicate"),
            Option("reason", .outcomeReason, "why it did not ring (offline-not-stored, app-blocked …)"), within,
            Option("call", .name, "a call named with as: instead of the latest push"),
            Option(
                "rules", .list(PhoneRule.allCases.map(\.rawValue)),
                "rules the push's story must show (ringside explain rules)"),
        ]
    ) { $0.lowerExpectPhone($1.argument, $1.block, at: $1.range).map { .expectPhone($0) } }

    /// When it is judged (`Judging`): a ring can be undone by a second push for the same call.
    public var judging: Judging { .whenSettled }
}

extension Lowering {
    mutating func lowerExpectPhone(_ argument: Scalar, _ block: Block, at range: SourceRange) -> PhoneExpectation? {
        guard block.has("outcome") else {
            report(
                "Missing key", at: range,
                "<expect phone> needs <outcome>: one of \(RingOutcome.Kind.allCases.map(\.rawValue).joined(separator: ", "))"
            )
            return nil
        }
        guard let phone = phone(argument), let outcome = word(block, "outcome", RingOutcome.Kind.self) else {
            return nil
        }
        var expectation = PhoneExpectation(phone: phone, outcome: outcome, within: PhoneExpectation.defaultWithin)
        if let scalar = scalar(block, "reason") {
            if outcome.reasons.contains(scalar.text) {
                expectation.reason = scalar.text
            } else {
                report(
                    "Unknown reason", at: scalar.range,
                    outcome.reasons.isEmpty
                        ? "<\(outcome.rawValue)> has no reason"
                        : "<\(outcome.rawValue)> happens for \(outcome.reasons.joined(separator: ", ")); got <\(clip(scalar.text))>",
                    suggestion: didYouMean(scalar.text, among: outcome.reasons))
            }
        }
        if let scalar = scalar(block, "call") {
            if let call = calls[scalar.text] {
                if !call.phones.contains(phone.index) {
                    report(
                        "Not this phone's call", at: scalar.range,
                        "call <\(clip(scalar.text))> rang <\(call.user)>, who had registered no token of \(phone.name) when it was placed"
                    )
                }
                expectation.call = scalar.text
            } else {
                report(
                    "Unknown call", at: scalar.range,
                    calls.isEmpty
                        ? "no call is named <\(clip(scalar.text))> before this step (`- call: USER` with `as: NAME`)"
                        : "no call is named <\(clip(scalar.text))> before this step; calls are \(listed(calls.keys))",
                    suggestion: didYouMean(scalar.text, among: Array(calls.keys)))
            }
        }
        if let within = duration(block, PhoneExpectation.within) { expectation.within = within }
        expectation.rules = words(block, "rules", PhoneRule.self, what: "rule names (`ringside explain rules`)")
        if let entry = block.entry("rules"), expectation.rules.isEmpty, case .sequence(let list) = entry.value,
            list.items.isEmpty
        {
            report(
                "Empty value", at: entry.keyRange,
                "<rules> takes the rules the push's story must show; drop it or name one")
        }
        if Set(expectation.rules).count < expectation.rules.count, let entry = block.entry("rules") {
            report("Duplicate rule", at: entry.value.range, "<rules> names a rule twice")
        }
        return expectation
    }
}
