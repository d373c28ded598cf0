import ScenarioLanguage

/// What running one scenario gave: a value the reports render (docs/architecture.md: results are values).
public struct ScenarioResult: Sendable {
    public struct Expectation: Sendable {
        public var range: SourceRange
        public var passed: Bool
        public var expected: String
        public var happened: String
        /// The world's chain of events behind what happened, in sentences.
        public var chain: [String]
        /// The last lines an `exec` or `http` provider printed, when it failed.
        public var printed: [String] = []
        /// World time when it was judged, to mark it on the diagram.
        public var at: Double? = nil
        /// It cannot be judged of this provider (`stopped` of an exec or http provider): shown, not
        /// counted.
        public var notApplicable = false
        /// The pushes the verdict rests on (`ExpectationResult.pushes`), for a report to point at.
        public var pushes: [PushReference] = []
    }

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

    /// Every push the world saw, with its chain (PushKit → the app → CallKit).
    public var calls: [CallStory] = []

    /// The scenario file's text, for the report to show the lines its failures link to.
    public var source: String = ""

    /// Everything that happened, in order, for the report's sequence diagram.
    public var ladder: [LadderEvent] = []

    public var path: String
    public var name: String
    public var teaches: String?
    public var expectations: [Expectation] = []
    /// Problems that kept the scenario from being run (parse or check errors).
    public var diagnostics: [Diagnostic] = []
    /// Why the run could not proceed (port busy, provider could not start).
    public var error: String?
    public var seconds: Double = 0
    /// Why the scenario was not run against the provider under test.
    public var skipped: Skip?

    public enum Skip: Sendable, CustomStringConvertible {
        /// It pins its own provider (often a broken one, to show an incident): not a requirement.
        case demonstration(provider: String)
        /// A requirement that does not apply to the provider (written for the other authentication).
        case notApplicable([String])

        public var description: String {
            switch self {
            case .demonstration(let provider): return "a demonstration: it pins its own provider (\(provider))"
            case .notApplicable(let why): return "not applicable: " + why.joined(separator: "; ")
            }
        }

        public var isDemonstration: Bool {
            if case .demonstration = self { return true } else { return false }
        }
    }

    public var passed: Bool { diagnostics.isEmpty && error == nil && expectations.allSatisfy(\.passed) }
}
