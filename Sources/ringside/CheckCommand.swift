import Foundation
import ScenarioLanguage

/// `ringside check FILE…`: parses and checks scenario files without running anything.
enum CheckCommand {
    static let help = """
        Usage: ringside check FILE…

        Parses and checks scenario files (*.ring) without running anything: every problem is shown
        with file:line:column, the source line, carets, and "did you mean" for near misses.
        See docs/scenario-language.md.

        Exit codes: 0 every file is well formed, 2 a file did not parse or check, 64 bad arguments.
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard !arguments.isEmpty, !arguments.contains("--help"), !arguments.contains("-h") else {
            Output.out(help)
            return arguments.isEmpty ? ExitCode.usage : ExitCode.success
        }
        var failed = false
        for path in arguments {
            guard let data = FileManager.default.contents(atPath: path) else {
                Output.error("error: cannot read <\(path)>")
                return ExitCode.usage
            }
            let file = SourceFile(path: path, text: String(decoding: data, as: UTF8.self))
            let problems = Checker.check(file)
            if problems.isEmpty {
                Output.out("\(path): ok")
            } else {
                failed = true
                for problem in problems { Output.error(problem.render(in: file)) }
                Output.error("\(path): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
            }
        }
        return failed ? ExitCode.scenarioInvalid : ExitCode.success
    }
}
