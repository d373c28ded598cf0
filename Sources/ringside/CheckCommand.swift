import APNs
import Foundation
import Reports
import ScenarioLanguage

/// `ringside check FILE…`: parses and checks scenario files without running anything.
enum CheckCommand {
    /// The options, declared once: the table below and every read name them (a misspelt one does not compile).
    enum Option {
        static let format = OptionSpec.choice(
            "--format", "FORMAT", OutputFormat.self,
            "console (default) or github: github also writes each problem as a GitHub Actions annotation (::error file=…,line=…,col=…::…)."
        )
    }

    static let spec = CommandSpec(
        "check", abstract: "Parse and check scenario files without running them.", operands: "FILE…",
        about: """
            Parses and checks scenario files (*.ring) without running anything: every problem is shown
            with file:line:column, the source line, carets, and "did you mean" for near misses.
            See docs/scenario-language.md.
            """,
        options: [Option.format],
        exitCodes: "Exit codes: 0 every file is well formed, 2 a file did not parse or check, 64 bad arguments.")

    static func run(_ raw: [String]) -> Int32 {
        var options = Arguments(raw, command: spec)
        guard !raw.isEmpty, !options.help() else {
            Output.out(spec.help)
            return raw.isEmpty ? ExitCode.usage : ExitCode.success
        }
        let format: OutputFormat
        let arguments: [String]
        do {
            format = try options.choice(Option.format, OutputFormat.self) ?? .console
            arguments = try options.remaining()
        } catch {
            Output.error("error: \(error.message)")
            return ExitCode.usage
        }
        var failed = false
        for path in arguments {
            // A path that names nothing is a wrong argument; a file too large or not regular is a
            // scenario that does not check (exit 2), as `run` counts it.
            guard FileManager.default.fileExists(atPath: path) else {
                Output.error("error: no file <\(OutsideText.visible(path))>")
                return ExitCode.usage
            }
            let file = SourceFile.readOrExplain(path)
            // A provider file (`init` writes one) is checked as one, as `--provider-file` reads it.
            let problems =
                Checker.isProviderFile(file)
                ? Checker.providerFile(
                    file, directory: URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
                ).diagnostics
                : Checker.check(file)
            if problems.isEmpty {
                Output.out("\(OutsideText.visible(path)): ok")
            } else {
                failed = true
                for problem in problems { Output.error(problem.render(in: file)) }
                Output.error("\(path): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
                if format == .github {
                    for annotation in GitHubAnnotations.render(problems, path: path) { Output.command(annotation) }
                }
            }
        }
        return failed ? ExitCode.scenarioInvalid : ExitCode.success
    }
}
