import MockAPNs
import Provider
import ScenarioLanguage
import World

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
        /// What went wrong first, when it failed (`ExpectationResult.cause`): the summary groups by it.
        public var cause: String? = nil
    }

    /// What a requirement asks of the provider under test (`obligation:`), and on what it rests.
    public var obligation: String?
    public var basis: Basis?

    /// What the scenario recorded, kept for the reports to draw (Reports/Ladder.swift builds the
    /// sequence diagram and the phone's stories from it): the runner judges, the reports draw.
    public struct Recording: Sendable {
        /// Every event of the mock but outcomes, in order.
        public var events: [MockEvent] = []
        /// The world's record of every push, with its chain (PushKit → the app → CallKit).
        public var fates: [PushFate] = []
        /// What the provider said it did (the built-in one: retries, refreshed JWTs, stops).
        public var actions: [ProviderAction] = []
        public var steps: [StepMark] = []
        public var clockJumps: [ClockJump] = []
        /// The line of the call step that was given each call id.
        public var callLines: [String: Int] = [:]
        /// World time when the scenario ended.
        public var endedAt: Double = 0
    }

    /// A step that drives the provider or the world, as its line reads, and when it was taken.
    public struct StepMark: Sendable {
        public var at: Double
        public var line: Int
        public var text: String
        /// `register`, `unregister`, `call`, `exec`: the requests after it are its provider's answer.
        public var drivesProvider: Bool
    }

    /// A world-clock jump (`advance:`): where, by how much, at which line.
    public struct ClockJump: Sendable {
        public var at: Double
        public var seconds: Double
        public var line: Int
    }

    public var recording = Recording()
    /// The scenario's load second by second, when it ran one (`--load-csv`, the report's plots).
    public var load: LoadSeries?

    /// The scenario file's text, for the report to show the lines its failures link to.
    public var source: String = ""

    public var path: String
    public var name: String
    public var teaches: String?
    public var expectations: [Expectation] = []
    /// Whether an exec or http provider that was asked to place a call reached the fake APNs at all
    /// (a connection, refused or not); nil when no call was placed or the provider is the built-in
    /// one. A provider that reaches it in no scenario was never pointed at it (`run` stops).
    public var reachedTheMock: Bool?
    /// The provider's last lines of output, for the message that says it never reached the mock.
    public var providerOutput: [String] = []
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
