import MockAPNs
import Scenario
import TestSupport
import Testing

/// `ScenarioTransport.memory`: the mock in memory on a manual clock, for scenarios whose only
/// provider is the built-in one.
@Suite struct TransportTests {
    static let ringsAfterAWait = """
        phones:
          - name: alice
        steps:
          - register: alice
          - wait: 30s
          - call: alice
          - expect phone: alice
            outcome: rang

        """

    @Test("In memory the provider's connection is the mock's own, and a wait passes on the manual clock")
    func inMemory() {
        let result = runScenario(Self.ringsAfterAWait, transport: .memory)
        #expect(result.passed, "\(result.error ?? "") \(result.expectations.map(\.happened))")
        let peers = result.recording.events.compactMap { event -> String? in
            if case .connectionOpened(_, let peer, _, _, _) = event { return peer }
            return nil
        }
        #expect(peers == ["memory"])
        let marks = result.recording.steps
        let waited = marks[2].at - marks[1].at
        #expect(waited >= 30 && waited < 31, "the wait step took \(waited) s of the scenario's clock")
    }

    @Test(
        "A scenario whose provider or command is a process is refused in memory, and says why",
        arguments: [
            "provider:\n  exec: \"true\"\n" + ringsAfterAWait,
            "phones:\n  - name: alice\nsteps:\n  - exec: \"true\"\n  - expect apns: nothing\n    count: 0\n",
        ])
    func processesNeedASocket(body: String) {
        let result = runScenario(body, transport: .memory)
        #expect(!result.passed)
        #expect(result.error?.contains("needs a socket") == true, "\(result.error ?? "no error")")
    }
}
