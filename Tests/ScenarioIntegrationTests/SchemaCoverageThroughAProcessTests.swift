import TestSupport
import Testing

/// The pairs of VerdictPairs whose scenarios need a socket: an `exec` step's command, an exec or
/// http provider. The others run in memory (ScenarioTests/VerdictPairs.swift).
@Suite struct SchemaCoverageThroughAProcessTests {
    @Test(
        "The word changes the verdict: one scenario of the pair passes, the other fails (through a process)",
        arguments: VerdictPairs.throughAProcess)
    func wordChangesTheVerdict(_ pair: VerdictPairs.Pair) {
        expectTheWordChangesTheVerdict(pair)
    }
}
