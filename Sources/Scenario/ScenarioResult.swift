import ScenarioLanguage

/// What running one scenario gave: a value the reports render (STYLE.md: results are values).
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
    }

    /// One message of the sequence diagram: provider ↔ APNs ↔ phone, at a world time.
    public struct LadderEvent: Sendable {
        public enum Party: String, Sendable { case provider, apns, phone }
        public var at: Double
        public var from: Party
        public var to: Party
        public var label: String
        public var failed: Bool
    }

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

    public var passed: Bool { diagnostics.isEmpty && error == nil && expectations.allSatisfy(\.passed) }
}
