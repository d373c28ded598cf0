import TestSupport
import Testing

/// The examples of docs/scenario-language.md that need a socket (a command, an exec or http
/// provider) check clean and pass; the others run in memory (ScenarioTests).
@Suite struct ScenarioDocumentationThroughAProcessTests {
    @Test(
        "The language reference's examples run and pass (through a process)",
        arguments: LanguageReference.indices(inMemory: false))
    func examplePasses(index: Int) throws { try expectTheExamplePasses(index) }
}
