import Foundation
import TestSupport
import Testing

/// docs/architecture.md: unit tests run in memory and start no process. `OptionTableTests` spawned
/// the binary and `ChildProcessTests` shell commands from the unit run until issue 47 moved them
/// to the integration targets; this keeps the statement true.
@Suite struct UnitTestsStartNoProcess {
    static let unitTargets = [
        "APNsTests", "WorldTests", "ScenarioLanguageTests", "MockAPNsUnitTests", "ProviderUnitTests", "ScenarioTests",
        "RingsideTests",
    ]
    /// What starts a process: Foundation's, posix_spawn, Ringside's own, TestSupport's `run`.
    static let starters = [
        "Process()", "posix_spawn", "ChildProcess(", "ShellCommand.run(", "try run(\"", "try run(Paths.",
    ]

    @Test("No unit test target starts a process")
    func noProcess() throws {
        let manager = FileManager.default
        var found: [String] = []
        for target in Self.unitTargets {
            let folder = Paths.root + "/Tests/" + target
            for file in try manager.subpathsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                for starter in Self.starters
                where text.contains(starter) && !file.hasSuffix("StartNoProcessTests.swift") {
                    found.append("\(target)/\(file): \(starter)")
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }
}
