import Foundation
import Testing

@testable import Scenario

/// When an `exec` provider is quiet (docs/scenario-language.md, "Quiet"): no process its command
/// started still runs.
@Suite struct ChildProcessTests {
    @Test("A process the command left in the background counts as running without its environment, in its group")
    func groupMemberWithoutEnvironment() throws {
        let children = Children()
        defer { children.stopAll() }
        let output = try OutputFile()
        // `env -i` clears the environment, marker and all, as `execve` does for a moment.
        let (shell, _) = try children.start("env -i sleep 1 &", environment: [:], output: output.handle)
        #expect(shell.wait(until: Date().addingTimeInterval(5)), "the shell returns at once")
        #expect(children.anyRunning(), "the background sleep still runs")
        let deadline = Date().addingTimeInterval(5)
        while children.anyRunning(), Date() < deadline { usleep(20_000) }
        #expect(!children.anyRunning(), "once it ends, nothing runs")
    }
}
