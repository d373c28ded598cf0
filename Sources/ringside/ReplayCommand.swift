import APNs
import Foundation
import MockAPNs
import Provider
import Reports
import Scenario
import ScenarioLanguage

/// `ringside replay TRANSCRIPT --scenario FILE`: the recorded run's APNs answers, served back in order
/// to the provider while the scenario's steps drive it; reports the first request that differs.
enum ReplayCommand {
    /// The options, declared once: the table below and every read name them (a misspelt one does not compile).
    enum Option {
        static let scenario = OptionSpec.text(
            "--scenario", "FILE", "The scenario the transcript was recorded from (required).")
        static let provider = OptionSpec.choice(
            "--provider", "PROFILE", ProviderProfile.self,
            "A built-in provider profile to replay against: \(ProviderProfile.allCases.map(\.rawValue).joined(separator: ", "))."
        )
        static let seed = OptionSpec.number("--seed", "N", in: OptionSpec.seeds, "The seed the run was recorded with.")
    }

    static let spec = CommandSpec(
        "replay", abstract: "Serve a recorded run's answers back and report the first request that differs.",
        operands: "--scenario FILE TRANSCRIPT.jsonl",
        about: """
            Runs the scenario again, but the fake APNs answers each request with the answer recorded in the
            transcript (`ringside run --transcript DIR` writes them), in order, as long as the provider's
            requests are the same as then. Judges the scenario's expectations as `run` does, and prints the
            first request that differs and how (method, path, topic, push type, priority, expiration,
            collapse id, whether a JWT was sent, the payload; or an answer the rules now give instead of a
            recorded 200), every retry that came sooner or later than recorded, and every failed
            expectation at its line; or "no difference". A run recorded with --seed N is replayed with it.
            The transcript is read a line at a time, ahead of the requests: a request is looked for among
            the next 10,000 recorded ones still unanswered, so a replay's memory does not grow with the
            transcript (a line that is not UTF-8 or not JSON is refused first, naming its line; a file
            that changes during the replay is an error, exit 3). A retry's wait is timed from the answer
            before it, so the replay's own reading never counts as the provider's back-off.
            """,
        options: [Option.scenario, Option.provider, Option.seed, OptionSpec.certs],
        exitCodes: """
            Exit codes: 0 no difference and every expectation passed, 1 a request differs or an expectation
            failed, 2 the scenario does not check, 3 cannot run, 64 bad arguments.
            """)

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: spec)
        if arguments.help() || raw.isEmpty {
            Output.out(spec.help)
            return raw.isEmpty ? ExitCode.usage : ExitCode.success
        }
        let signals = InterruptStopsProviders.install()
        defer { withExtendedLifetime(signals) { ProcessTree.stopOrphans() } }
        return runCommand {
            let scenarioOption = try arguments.value(Option.scenario)
            let provider = try arguments.choice(Option.provider, ProviderProfile.self)
            let seed = try arguments.number(Option.seed, UInt64.self)
            let certsOption = try arguments.value(OptionSpec.certs)
            let rest = try arguments.remaining()
            guard let scenario = scenarioOption else { throw UsageError("--scenario FILE is required") }
            let certs = try TestCredentials.required(certsOption)
            guard rest.count == 1 else { throw UsageError("give one transcript file") }
            let plan = try ReplayPlan.load(transcript: rest[0])
            let file: SourceFile
            do { file = try SourceFile.read(scenario) } catch { throw UsageError("\(error)") }
            let result = ScenarioRunner.run(
                file, certs: certs, providerUnderTest: provider.map { ProviderUnderTest(setup: .builtin($0)) },
                replay: plan,
                seed: seed)
            if !result.diagnostics.isEmpty {
                for diagnostic in result.diagnostics { Output.error(diagnostic.render(in: file)) }
                return ExitCode.scenarioInvalid
            }
            if let error = result.error {
                Output.error("error: \(error)")
                return ExitCode.cannotProceed
            }
            if let problem = plan.readError {
                // The transcript changed while it was replayed: what the replay says does not stand.
                Output.error("error: \(rest[0]) changed during the replay: \(problem)")
                return ExitCode.cannotProceed
            }
            var differs = false
            if let difference = plan.difference {
                Output.out(difference.description)
                differs = true
            } else if plan.missing > 0 {
                Output.out("the run made \(plan.missing) fewer requests than the recording")
                differs = true
            }
            for change in plan.timingChanges { Output.out(change.description) }
            if let failure = ConsoleReport.failure(result, in: file) {
                Output.out(failure)
                return ExitCode.expectationFailed
            }
            if differs { return ExitCode.expectationFailed }
            Output.out(
                "no difference: every request matched the recording and every expectation passed"
                    + (plan.timingChanges.isEmpty ? "" : " (retry timing changed, above)"))
            return ExitCode.success
        }
    }
}
