import Foundation
import Provider
import Scenario
import ScenarioLanguage

/// `ringside run FILE|DIR…`: runs scenarios, a line each as they finish, and explains failures.
enum RunCommand {
    static let help = """
        Usage: ringside run [--filter TEXT] [--provider PROFILE] [--certs DIR] FILE|DIR…

        Runs scenario files (directories: every *.ring inside, sorted): for each, a fake APNs on a free
        port with its own world, the provider, the steps, the expectations. A failure shows the
        expectation's line, what was expected, what happened and the phone's chain of events.
        --provider runs every scenario against another built-in profile (reference, or a naive one:
        forgets-voip-suffix, priority-5, non-zero-expiration, new-jwt-per-request,
        keeps-pushing-after-410, prunes-only-on-410, no-backoff-on-503, uses-regular-token,
        cancels-with-push, registers-twice).

        Exit codes: 0 all passed, 1 an expectation failed, 2 a scenario did not parse or check,
        3 the run could not proceed, 64 bad arguments.
        """

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: "run")
        if arguments.flag("--help") || arguments.flag("-h") || raw.isEmpty {
            Output.out(help)
            return raw.isEmpty ? ExitCode.usage : ExitCode.success
        }
        return runCommand {
            let filter = try arguments.value("--filter")
            let provider = try arguments.choice("--provider", ProviderProfile.self, choices: ProviderProfile.allCases)
            guard let certs = TestCredentials.directory(try arguments.value("--certs")) else {
                Output.error("error: cannot find certs-test/; pass --certs DIR")
                return ExitCode.cannotProceed
            }
            let paths = try arguments.remaining()
            var files: [String] = []
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw UsageError("no file or directory <\(path)>")
                }
                if isDirectory.boolValue {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                    let directory = path.hasSuffix("/") ? String(path.dropLast()) : path
                    files += names.filter { $0.hasSuffix(".ring") }.sorted().map { "\(directory)/\($0)" }
                } else {
                    files.append(path)
                }
            }
            var passed = 0
            var failed = 0
            var invalid = 0
            var broken = 0
            for (index, path) in files.enumerated() {
                let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
                let file = SourceFile(path: path, text: text)
                if let filter, !path.contains(filter), !text.contains(filter) { continue }
                let result = ScenarioRunner.run(file, certs: certs, provider: provider)
                let counter = "[\(index + 1)/\(files.count)]"
                if !result.diagnostics.isEmpty {
                    invalid += 1
                    Output.out("✘ \(counter) \(path): does not check")
                    for diagnostic in result.diagnostics { Output.out(diagnostic.render(in: file)) }
                } else if let error = result.error {
                    broken += 1
                    Output.out("✘ \(counter) \(result.name) (\(path)): could not run: \(error)")
                } else if result.passed {
                    passed += 1
                    Output.out(String(format: "✔ %@ %@ (%@, %.1f s)", counter, result.name, path, result.seconds))
                } else {
                    failed += 1
                    Output.out("✘ \(counter) \(result.name) (\(path))")
                    for expectation in result.expectations where !expectation.passed {
                        let diagnostic = Diagnostic(
                            "Expectation failed", at: expectation.range,
                            detail: "expected \(expectation.expected); happened: \(expectation.happened)")
                        Output.out(diagnostic.render(in: file))
                        for step in expectation.chain { Output.out("    - \(step)") }
                    }
                }
            }
            Output.out("scenarios: \(passed) passed, \(failed + invalid + broken) failed")
            if invalid > 0 { return ExitCode.scenarioInvalid }
            if broken > 0 { return ExitCode.cannotProceed }
            return failed > 0 ? ExitCode.expectationFailed : ExitCode.success
        }
    }
}
