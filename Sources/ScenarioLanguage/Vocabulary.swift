/// The words of the language, each declared once with what it takes and what it means. The
/// checker reads values through these declarations, refuses other words with "did you mean", and
/// `Schema`, `Keywords`, `ringside explain` and the language reference's tables (compared by
/// `VocabularyTests`) are derived from them. Adding a step or an expectation is one declaration in
/// one file of `Steps/`, with its lowering beside it.
public enum Vocabulary {
    /// Every step, in the order the language reference lists them.
    public static let steps: [StepKind] =
        PhoneSteps.kinds + TimeSteps.kinds + [FaultStep.kind, APNsExpectation.kind, PhoneExpectation.kind]
        + [ProviderExpectation.kind, LoadPlan.kind, LoadExpectation.kind]

    public static let stepsByName: [String: StepKind] = Dictionary(uniqueKeysWithValues: steps.map { ($0.name, $0) })
}

/// What a value must be, declared with its key: the checker reads by it and `explain` says it.
public enum ValueKind: Sendable, Equatable {
    /// A whole number in the range.
    case number(ClosedRange<Int>)
    /// `250ms`, `30s`, `5m`, `2h`, `1d`, at most this many seconds.
    case duration(atMost: Double)
    case boolean
    /// One of the words (an enum's raw values).
    case choice([String])
    /// A phone of `phones:`.
    case phone
    /// An app of the phone (its bundle ID).
    case app
    /// An APNs reason, spelled as on the wire.
    case reason
    /// A name: letters, digits and `+ . _ @ -`.
    case name
    /// A name, or a list of them.
    case names
    /// A list of the words (`[a, b]` or `- a` lines).
    case list([String])
    /// One of the reasons of the expectation's outcome (`ringside explain outcomes`).
    case outcomeReason
    /// Free text.
    case text
    /// A percentage from 0% to 100% (`5%`, `99.5%`).
    case share

    /// In words, for `ringside explain`.
    public var described: String {
        switch self {
        case .number(let range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .duration(let most): return "a duration, at most \(Self.written(most))"
        case .boolean: return "true or false (or yes, no)"
        case .choice(let words): return "one of \(words.joined(separator: ", "))"
        case .phone: return "a phone's name"
        case .app: return "one of the phone's apps"
        case .reason: return "an APNs reason"
        case .name: return "a name: letters, digits and + . _ @ -"
        case .names: return "a name or a list of names"
        case .list(let words): return "a list, each one of \(words.joined(separator: ", "))"
        case .outcomeReason: return "one of the outcome's reasons (ringside explain outcomes)"
        case .text: return "text"
        case .share: return "a percentage from 0% to 100%, like 5%"
        }
    }

    /// A duration's limit as messages and `explain` write it: `ten years`, `24h`, `300s`.
    static func written(_ seconds: Double) -> String {
        if seconds >= longestDuration { return "ten years" }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
        return "\(Int(seconds))s"
    }
}

/// A key of a step (or of a block), declared once.
public struct Option: Sendable {
    public let key: String
    public let takes: ValueKind
    public let meaning: String

    public init(_ key: String, _ takes: ValueKind, _ meaning: String) {
        self.key = key
        self.takes = takes
        self.meaning = meaning
    }
}

/// One kind of step: its word, what its value is, its options, and how the checker lowers it.
public struct StepKind: Sendable {
    public let name: String
    /// What the value on the step's line is (`<phone>`, `<duration>` …).
    public let argument: String
    public let meaning: String
    public let options: [Option]
    /// Reads the step into the plan (nil when the file is wrong there: a problem was reported).
    let lower: @Sendable (inout Lowering, StepInput) -> Step.Action?

    init(
        _ name: String, _ argument: String, _ meaning: String, options: [Option] = [],
        lower: @escaping @Sendable (inout Lowering, StepInput) -> Step.Action?
    ) {
        self.name = name
        self.argument = argument
        self.meaning = meaning
        self.options = options
        self.lower = lower
    }
}

/// What a step's lowering reads: the value on its line, its options, and where its word stands.
struct StepInput {
    let argument: Scalar
    let block: Lowering.Block
    let range: SourceRange
}
