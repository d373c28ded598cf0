import APNs
import Foundation
import MockAPNs
import Provider
import Reports
import Scenario
import ScenarioLanguage
import Synchronization

/// `ringside run FILE|DIR…`: runs scenarios, a line each as they finish, and explains failures.
enum RunCommand {
    /// The options, declared once: the table below and every read name them (a misspelt one does not compile).
    enum Option {
        static let filter = OptionSpec.text("--filter", "TEXT", "Keep files whose path or text contains TEXT.")
        static let seed = OptionSpec.number("--seed", "N", in: OptionSpec.seeds, "Overrides every scenario's seed.")
        static let jobs = OptionSpec.number(
            "--jobs", "N", in: 1...1024,
            "Runs N scenarios at once (default: one per core with the built-in provider; four per core, at most 16, with an exec or http provider, which mostly waits)."
        )
        static let shard = OptionSpec.text(
            "--shard", "K/N", "Runs the K-th of N slices of the files, after --filter (for CI machines).")
        static let provider = OptionSpec.text(
            "--provider", "PROVIDER",
            "Runs the requirements against a built-in profile (reference, or a naive one: \(ProviderProfile.allCases.map(\.rawValue).joined(separator: ", "))), or against a command with 'exec: COMMAND'."
        )
        static let providerFile = OptionSpec.text(
            "--provider-file", "FILE",
            "Runs the requirements against the provider FILE describes: a `provider:` section as a scenario writes it (builtin, exec, or http with ready/register/unregister/call), with `auth: token` or `auth: certificate`; {dir} in its commands is FILE's folder."
        )
        static let loadCsv = OptionSpec.text(
            "--load-csv", "FILE",
            "Writes each load scenario second by second as CSV (calls placed and rung, ring latency p50 and p99, outcomes, APNs answers by status, connections)."
        )
        static let junit = OptionSpec.text(
            "--junit", "FILE", "Writes a JUnit XML report (one testcase per scenario; skipped ones as <skipped>).")
        static let report = OptionSpec.text(
            "--report", "FILE.html",
            "Writes one self-contained page with a sequence diagram per scenario (at most 400 messages each, failures first; the rest are counted, and --transcript keeps them all). Failures are always shown whole; once passes fill 3 MB, the rest are summarised and the page says how many. Reports and transcripts are never written through a symbolic link (exit 3)."
        )
        static let transcript = OptionSpec.text("--transcript", "DIR", "Writes one JSONL transcript per scenario.")
        static let format = OptionSpec.choice(
            "--format", "FORMAT", OutputFormat.self,
            "console (default) or github: github also writes a GitHub Actions annotation (::error file=…,line=…,col=…::…) for each failed expectation and check error, and a notice for each skipped scenario, beside the console output (docs/ci.md)."
        )
        static let library = OptionSpec.flag(
            "--library",
            "Adds the bundled scenario library, found beside this binary (a tarball's scenarios/, or /usr/share/ringside/scenarios for /usr/bin/ringside from the .deb); no FILE is needed then."
        )
    }

    static let spec = CommandSpec(
        "run", abstract: "Run scenario files against the built-in provider and report.", operands: "FILE|DIR…",
        about: """
            Runs scenario files (directories: every *.ring inside, sorted): for each, a fake APNs on a free
            port with its own world, the provider, the steps, the expectations. A failure shows the
            expectation's line, what was expected, what happened and the phone's chain of events.

            Your provider against the library: --provider-file FILE runs every *requirement* (a scenario
            that names no provider) against the provider FILE describes. A *demonstration* (a scenario that
            pins its own provider, often a broken one) is skipped and says why, as is a requirement written
            for the other authentication or needing a template FILE lacks. The run ends with a conformance
            summary: each requirement, the rule it checks, passed or failed.

            A run that judges nothing — no file, an empty shard, nothing but skipped scenarios — fails.
            """,
        options: [
            Option.filter, Option.seed, Option.jobs, Option.shard, Option.provider, Option.providerFile, Option.junit,
            Option.loadCsv,
            Option.report, Option.transcript, Option.format, OptionSpec.certs, Option.library,
        ],
        exitCodes: """
            Exit codes: 0 all passed, 1 an expectation failed, 2 a scenario did not parse or check,
            3 the run could not proceed (or judged nothing), 64 bad arguments.
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
            let filter = try arguments.value(Option.filter)
            let providerText = try arguments.value(Option.provider)
            let providerFile = try arguments.value(Option.providerFile)
            let junit = try arguments.value(Option.junit)
            let loadCsv = try arguments.value(Option.loadCsv)
            let transcripts = try arguments.value(Option.transcript)
            let jobsOption = try arguments.number(Option.jobs, Int.self)
            let report = try arguments.value(Option.report)
            let seed = try arguments.number(Option.seed, UInt64.self)
            let shard = try arguments.value(Option.shard)
            let format = try arguments.choice(Option.format, OutputFormat.self) ?? .console
            let certsOption = try arguments.value(OptionSpec.certs)
            let library = arguments.flag(Option.library)
            let named = try arguments.remaining()
            let certs = try TestCredentials.required(certsOption)
            let paths = named + (library ? [try ScenarioLibrary.required()] : [])
            let provider = try ProviderOption.read(text: providerText, file: providerFile)
            let jobs = jobsOption ?? Self.defaultJobs(builtin: provider?.underTest.setup.isBuiltin ?? true)
            let files = try scenarioFiles(paths)
            var selected: [(path: String, file: SourceFile)] = files.compactMap { path in
                let file = SourceFile.readOrExplain(path)
                if let filter, !path.contains(filter), !file.text.contains(filter) { return nil }
                // A provider file beside the scenarios (`ringside init` writes one) is no scenario.
                if !paths.contains(path), Checker.isProviderFile(file) { return nil }
                return (path, file)
            }
            if let filter, selected.isEmpty {
                throw UsageError("--filter <\(filter)> matches no scenario")
            }
            // Sliced after the filter: every shard of a filtered run gets its share.
            if let shard {
                let parts = shard.split(separator: "/").compactMap { Int($0) }
                guard parts.count == 2, parts[1] > 0, (1...parts[1]).contains(parts[0]) else {
                    throw UsageError("--shard takes k/n with 1 ≤ k ≤ n, got <\(shard)>")
                }
                let all = selected.count
                selected = selected.enumerated().filter { $0.offset % parts[1] == parts[0] - 1 }.map(\.element)
                guard !selected.isEmpty else {
                    throw UsageError(
                        "--shard \(shard) selects no scenario: there are \(all), fewer than \(parts[1]) shards")
                }
            }
            if let transcripts {
                try OutputFiles.refuseLink(transcripts)
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: transcripts, isDirectory: &isFolder), !isFolder.boolValue {
                    throw UsageError(
                        "--transcript takes a folder (one .jsonl file per scenario is written in it); <\(OutsideText.visible(transcripts))> is a file"
                    )
                }
                try FileManager.default.createDirectory(atPath: transcripts, withIntermediateDirectories: true)
                var names = Set<String>()
                for (path, _) in selected where !names.insert((path as NSString).lastPathComponent).inserted {
                    throw UsageError(
                        "two scenarios are named \((path as NSString).lastPathComponent); --transcript would write both to one file"
                    )
                }
            }
            let tally = Tally(format: format)
            let total = selected.count
            // Independent scenarios run in parallel, each with its own mock on a free port.
            let queue = DispatchQueue(label: "ringside.run", attributes: .concurrent)
            let slots = DispatchSemaphore(value: jobs)
            let group = DispatchGroup()
            let reach = Reach()
            for (path, file) in selected as [(path: String, file: SourceFile)] {
                slots.wait()
                guard !reach.neverReached else {
                    slots.signal()
                    break
                }
                group.enter()
                queue.async {
                    defer {
                        slots.signal()
                        group.leave()
                    }
                    let transcript = transcripts.map {
                        "\($0)/\(((path as NSString).lastPathComponent as NSString).deletingPathExtension).jsonl"
                    }
                    let runner = ScenarioRunner(
                        file: file, certs: certs, provider: provider?.underTest, transcript: transcript)
                    runner.seedOverride = seed
                    // A load's status: redrawn every second on a terminal, a block every few seconds in a CI log.
                    let name = OutsideText.visible((path as NSString).lastPathComponent)
                    let status = LoadStatusDisplay(name: name)
                    runner.progress = { lines, final in status.show(lines, final: final) }
                    let result = runner.run()
                    tally.report(result, file: file, path: path, total: total)
                    if provider != nil { reach.note(result) }
                }
            }
            group.wait()
            if reach.neverReached {
                Output.error(Reach.message(reach.lastOutput))
                return ExitCode.cannotProceed
            }
            let totals = tally.totals
            if let provider {
                Output.out(ConformanceSummary.render(tally.results, provider: provider.name))
                Output.out(
                    "requirements: \(totals.passed) passed, \(totals.failed + totals.invalid + totals.broken) failed; "
                        + "demonstrations: \(totals.demonstrations) skipped"
                        + (totals.notApplicable > 0 ? "; not applicable: \(totals.notApplicable)" : ""))
            } else {
                Output.out(
                    "scenarios: \(totals.passed) passed, \(totals.failed + totals.invalid + totals.broken) failed")
            }
            if let loadCsv {
                let loads = tally.results.compactMap { result in result.load.map { (result.path, $0) } }
                try OutputFiles.write(LoadSeries.csv(loads), to: loadCsv)
            }
            if let junit {
                try OutputFiles.write(JUnitReport.render(totals.cases), to: junit)
            }
            if let report {
                try OutputFiles.write(HTMLReport.render(tally.results, provider: provider?.name), to: report)
            }
            if totals.invalid > 0 { return ExitCode.scenarioInvalid }
            if totals.broken > 0 { return ExitCode.cannotProceed }
            if totals.failed > 0 { return ExitCode.expectationFailed }
            if totals.passed == 0 {
                Output.error(
                    "error: nothing was judged: all \(selected.count) scenario\(selected.count == 1 ? " was" : "s were") skipped"
                        + (provider == nil ? "" : " (demonstrations pin their own provider; requirements name none)"))
                return ExitCode.cannotProceed
            }
            return ExitCode.success
        }
    }

    /// Scenarios at once when `--jobs` is unsaid: the built-in provider works a core each; an exec
    /// or http provider's scenario mostly waits for the provider, so four a core (at most 16: each
    /// starts its own service).
    static func defaultJobs(builtin: Bool) -> Int {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return builtin ? cores : min(16, 4 * cores)
    }

    /// Whether the provider under test ever reached the fake APNs: one that placed calls in
    /// `scenariosToGiveUp` scenarios and never connected was not pointed at it (a client with
    /// Apple's host built in), and every scenario would fail for that one reason, slowly (issue 45).
    final class Reach: Sendable {
        static let scenariosToGiveUp = 3
        private struct State {
            var unreached = 0
            var reached = false
            var lastOutput: [String] = []
        }
        private let state = Mutex(State())

        func note(_ result: ScenarioResult) {
            guard let reached = result.reachedTheMock else { return }
            state.withLock {
                if reached { $0.reached = true } else { $0.unreached += 1 }
                $0.lastOutput = result.providerOutput
            }
        }

        var neverReached: Bool { state.withLock { !$0.reached && $0.unreached >= Self.scenariosToGiveUp } }
        var lastOutput: [String] { state.withLock { $0.lastOutput } }

        static func message(_ output: [String]) -> String {
            "error: the provider never reached the fake APNs: it was asked to place calls in \(scenariosToGiveUp) scenarios and no connection came, so the run stopped (every requirement would fail for this one reason). "
                + "Does it read APNS_URL (or APNS_HOST and APNS_PORT) and trust APNS_CA_FILE? A client with Apple's host built in must be pointed at the mock: docs/clients.md shows how for each client library."
                + (output.isEmpty
                    ? " It printed nothing."
                    : " Its last output:\n    " + OutsideText.visibleLines(output.suffix(10).joined(separator: "\n")))
        }
    }

    typealias Case = (name: String, path: String, seconds: Double, failure: String?, skipped: String?)

    /// Counts and prints results as scenarios finish (from several threads): each result is counted
    /// and printed under one lock, so lines never interleave and `[n/total]` counts up.
    final class Tally: Sendable {
        struct Totals {
            var passed = 0
            var failed = 0
            var invalid = 0
            var broken = 0
            var demonstrations = 0
            var notApplicable = 0
            var cases: [Case] = []
        }

        private struct State {
            var done = 0
            var totals = Totals()
            var kept: [ScenarioResult] = []
        }

        private let state = Mutex(State())
        private let format: OutputFormat

        init(format: OutputFormat) { self.format = format }

        /// Every result, in file order.
        var results: [ScenarioResult] { state.withLock { $0.kept }.sorted { $0.path < $1.path } }

        /// The counts, and the cases in file order.
        var totals: Totals {
            var totals = state.withLock { $0.totals }
            totals.cases.sort { $0.path < $1.path }
            return totals
        }

        func report(_ result: ScenarioResult, file: SourceFile, path: String, total: Int) {
            state.withLock { state in
                state.done += 1
                state.kept.append(result)
                state.totals.cases.append(
                    (
                        result.name, path, result.seconds, ConsoleReport.failure(result, in: file),
                        result.skipped?.description
                    ))
                show(result, file: file, path: path, counter: "[\(state.done)/\(total)]", into: &state.totals)
            }
        }

        /// One result's lines, counted in `totals`.
        private func show(
            _ result: ScenarioResult, file: SourceFile, path: String, counter: String, into totals: inout Totals
        ) {
            // Names, paths and messages are outside text (a scenario's, a provider's): shown visibly.
            let visible = OutsideText.visible
            let path = visible(path)
            let name = visible(result.name)
            if !result.diagnostics.isEmpty {
                totals.invalid += 1
                Output.out("✘ \(counter) \(path): does not check")
                for diagnostic in result.diagnostics { Output.out(diagnostic.render(in: file)) }
            } else if let skipped = result.skipped {
                if skipped.isDemonstration { totals.demonstrations += 1 } else { totals.notApplicable += 1 }
                Output.out("– \(counter) \(name) (\(path)): skipped, \(visible(skipped.description))")
            } else if let error = result.error {
                totals.broken += 1
                Output.out("✘ \(counter) \(name) (\(path)): could not run: \(OutsideText.visibleLines(error))")
            } else if result.passed {
                totals.passed += 1
                Output.out(String(format: "✔ %@ %@ (%@, %.1f s)", counter, name, path, result.seconds))
                for expectation in result.expectations where expectation.notApplicable {
                    Output.out("    – line \(expectation.range.start.line): \(visible(expectation.happened))")
                }
            } else {
                totals.failed += 1
                Output.out("✘ \(counter) \(name) (\(path))")
                if let failure = ConsoleReport.failure(result, in: file) { Output.out(failure) }
            }
            if format == .github {
                for annotation in GitHubAnnotations.render(result) { Output.command(annotation) }
            }
        }
    }
}

/// `--provider` and `--provider-file`: the provider under test, and how the summary names it.
struct ProviderOption {
    var underTest: ProviderUnderTest
    var name: String

    static func read(text: String?, file: String?) throws -> ProviderOption? {
        switch (text, file) {
        case (nil, nil): return nil
        case (.some, .some): throw UsageError("give --provider or --provider-file, not both")
        case (let text?, nil):
            if let profile = ProviderProfile(rawValue: text) {
                return ProviderOption(underTest: ProviderUnderTest(setup: .builtin(profile)), name: "builtin: \(text)")
            }
            guard text.hasPrefix("exec:") || text.hasPrefix("builtin:") else {
                throw UsageError(
                    "--provider takes a profile (\(ProviderProfile.allCases.map(\.rawValue).joined(separator: ", "))), "
                        + "<exec: COMMAND> or <builtin: PROFILE>; got <\(text)> (an http service needs --provider-file)"
                )
            }
            let source = SourceFile(path: "--provider", text: "provider:\n  " + text + "\n")
            let read = Checker.providerFile(source, directory: FileManager.default.currentDirectoryPath)
            guard let provider = read.provider else {
                throw UsageError(
                    "--provider <\(text)>: "
                        + read.diagnostics.map { "\($0.title): \($0.detail)" }.joined(separator: "; "))
            }
            return ProviderOption(underTest: provider, name: text.count > 60 ? String(text.prefix(57)) + "…" : text)
        case (nil, let path?):
            let source: SourceFile
            do { source = try SourceFile.read(path) } catch { throw UsageError("--provider-file: \(error)") }
            let directory = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
            let read = Checker.providerFile(source, directory: directory)
            guard let provider = read.provider else {
                for diagnostic in read.diagnostics { Output.error(diagnostic.render(in: source)) }
                throw ProviderFileInvalid()
            }
            return ProviderOption(underTest: provider, name: path)
        }
    }
}

/// A provider file that does not check: its diagnostics are printed; exit 2, as for a scenario.
struct ProviderFileInvalid: Error {}

/// How `run` and `check` write their findings: for people only, or also as GitHub Actions annotations.
enum OutputFormat: String, CaseIterable {
    case console, github
}

/// The scenario files named: files as they are, folders by every `*.ring` inside, at any depth
/// (the library is grouped by topic), in path order. None at all is a usage error: a CI job pointed
/// at the wrong folder must not go green on nothing.
func scenarioFiles(_ paths: [String]) throws(UsageError) -> [String] {
    var files: [String] = []
    for path in paths {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw UsageError("no file or directory <\(path)>")
        }
        guard isDirectory.boolValue else {
            files.append(path)
            continue
        }
        let directory = path.hasSuffix("/") ? String(path.dropLast()) : path
        let found = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        files += found.filter { $0.hasSuffix(".ring") && !$0.split(separator: "/").contains { $0.hasPrefix(".") } }
            .sorted().map { "\(directory)/\($0)" }
    }
    guard !files.isEmpty else { throw UsageError("no scenario files (*.ring) in \(paths.joined(separator: " "))") }
    return files
}

/// Reading scenario and provider files is the command line's (ScenarioLanguage does no I/O).
extension SourceFile {
    /// The largest scenario or provider file read: 1 MiB, twenty thousand phones' worth, checked
    /// in well under a second (docs/scenario-language.md).
    public static let largest = 1 << 20

    /// Why a file was not read, naming it.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    /// A scenario file, or one that says why it could not be read: a scenario that does not check.
    public static func readOrExplain(_ path: String) -> SourceFile {
        do { return try read(path) } catch { return SourceFile(path: path, unreadable: "\(error)") }
    }

    /// Reads a scenario or provider file, refusing one larger than `largest` before reading it.
    public static func read(_ path: String) throws -> SourceFile {
        // A FIFO or a device would block or never end: only regular files are scenarios.
        if let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType,
            type != .typeRegular
        {
            throw Unreadable(description: "<\(path)> is not a regular file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Unreadable(description: "cannot read <\(path)>")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: largest + 1)) ?? Data()
        guard data.count <= largest else {
            throw Unreadable(
                description: "<\(path)> is larger than \(largest >> 20) MiB, the most a scenario file may be")
        }
        return SourceFile(path: path, text: String(decoding: data, as: UTF8.self))
    }
}

/// A running load's status on standard error (issue 48): on a terminal the block is redrawn in
/// place every second, as SIPp's screen; elsewhere (a CI log) it is written every few seconds, and
/// the final figures once.
final class LoadStatusDisplay: Sendable {
    private let name: String
    private let terminal = isatty(2) == 1
    private let state = Mutex<(drawn: Int, writtenAt: Double)>((0, 0))
    /// How often a CI log gets the block.
    static let logEvery = 5.0

    init(name: String) { self.name = name }

    func show(_ lines: () -> [String], final: Bool) {
        state.withLock { state in
            let now = Date().timeIntervalSince1970
            guard terminal || final || now - state.writtenAt >= Self.logEvery else { return }
            let text = lines().map { "  … \(name): \(OutsideText.visible($0))" }
            if terminal {
                // Up over the block drawn before, and clear to the end of the screen.
                if state.drawn > 0 { Output.terminalControl("\u{1B}[\(state.drawn)A\u{1B}[J") }
                for line in text { Output.error(line) }
                state.drawn = final ? 0 : text.count
            } else if final || now - state.writtenAt >= Self.logEvery {
                state.writtenAt = now
                for line in text { Output.error(line) }
            }
        }
    }
}
