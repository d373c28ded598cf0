import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// Every key and value of the scenario language changes a verdict (VerdictPairs): a word without a
/// pair (one that a scenario could write and nothing would notice) fails `everyWordHasAPair`; a
/// pair whose verdicts agree fails `wordChangesTheVerdict`. The pairs here run in memory; those
/// that need a socket (a command, an exec or http provider) are in ScenarioIntegrationTests.
@Suite struct SchemaCoverageTests {
    @Test("Every key and value of the schema has a pair, or says why it cannot")
    func everyWordHasAPair() {
        // Neither half of the split is empty by mistake (an argument list of none passes).
        #expect(!VerdictPairs.inMemory.isEmpty && !VerdictPairs.throughAProcess.isEmpty)
        let covered = Set(VerdictPairs.pairs.flatMap(\.words))
        for word in VerdictPairs.vocabulary where !covered.contains(word) && VerdictPairs.exempt[word] == nil {
            Issue.record("<\(word)> has no pair of scenarios whose verdicts it changes")
        }
        for word in covered where !VerdictPairs.vocabulary.contains(word) {
            Issue.record("<\(word)> is not a word of the schema")
        }
    }

    @Test(
        "The word changes the verdict: one scenario of the pair passes, the other fails (in memory)",
        arguments: VerdictPairs.inMemory)
    func wordChangesTheVerdict(_ pair: VerdictPairs.Pair) {
        expectTheWordChangesTheVerdict(pair)
    }
}
