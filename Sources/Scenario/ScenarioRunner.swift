import APNs
import Foundation
import HTTP2Server
import MockAPNs
import Provider
import ScenarioLanguage
import Synchronization
import World

/// Runs one checked scenario: a mock on a free port with its own world, the provider driven through
/// its adapter, the steps in order, every expectation evaluated, everything stopped at the end. It
/// reads only the plan (`Checker.plan`) and switches over it exhaustively: a step or expectation
/// that is not run is a compile error.
public final class ScenarioRunner {
    let file: SourceFile
    let certs: String
    private var plan: ScenarioPlan!
    /// The mock, on loopback or in memory (`transport`), with the clock every wait passes on.
    private var host: ScenarioMock!
    private var assembly: MockAssembly! { host?.assembly }
    private var provider: (any ProviderDriver)!
    /// How long the runner waits for the provider, and for what (Waiting.swift): made by `start`.
    private var waiting: Waiting!
    /// The `http` provider's process, stopped with the scenario (also on failure).
    private var httpProvider: HTTPServiceProvider?
    private let recorder = PushRecorder()
    /// Every process the scenario's commands started, stopped at its end.
    private let children = Children()
    /// The call id of each call named with `as:`.
    private var callIds: [String: String] = [:]
    /// Call ids from the scenario's seed: the same scenario makes the same payloads (replay compares them).
    private lazy var callIdGenerator = MessageIdGenerator(seed: plan.seed &+ 0x6361_6c6c)
    /// Each phone's latest call, its world time and id: `expect phone` without `call:` judges the
    /// pushes since, and a ring counts for it only if its push carries the id.
    private var lastCall: [Int: (at: Double, id: String)] = [:]
    /// The line of the call step that was given each call id, to name a stale one.
    private var callsById: [String: Int] = [:]
    /// World time each call was placed, by its id.
    private var callPlacedAt: [String: Double] = [:]
    /// Wall time each call step started: a push sent again belongs to the same call.
    private var callStarts: [Double] = []
    /// World-clock jumps (`advance:`): where, by how much, at which line; the report draws a break.
    private var clockJumps: [ScenarioResult.ClockJump] = []
    /// The steps that drive the provider or the world, with when they were taken (world time), for
    /// the report's timeline.
    private var stepMarks: [ScenarioResult.StepMark] = []
    /// Whether an `exec` step has run: what it started may still push, unseen (`waitForTheNextEvent`).
    private var execRan = false
    /// Every device token the runner handed to the provider, by phone.
    private var registered: [Int: Set<String>] = [:]
    private var result: ScenarioResult

    /// The provider under test (`run --provider-file`, `--provider`): a requirement (a scenario
    /// that names no provider) runs against it; a demonstration (one that pins its own) is skipped.
    let providerUnderTest: ProviderUnderTest?
    /// Where to write this scenario's JSONL transcript, if anywhere.
    let transcriptPath: String?
    /// Recorded answers to serve instead of judging (`ringside replay`).
    let replay: ReplayPlan?
    /// Overrides the scenario's `seed:` (`ringside run --seed`).
    public var seedOverride: UInt64?
    /// Where the mock runs: loopback (any provider) or memory (the built-in provider, no socket and
    /// no sleep; the tests' way).
    public var transport = ScenarioTransport.loopback

    public init(
        file: SourceFile, certs: String, provider: ProviderUnderTest? = nil, transcript: String? = nil,
        replay: ReplayPlan? = nil
    ) {
        self.file = file
        self.certs = certs
        providerUnderTest = provider
        transcriptPath = transcript
        self.replay = replay
        result = ScenarioResult(path: file.path, name: file.path)
        result.source = file.text
    }

    public static func run(
        _ file: SourceFile, certs: String, provider: ProviderSetup, transcript: String? = nil,
        replay: ReplayPlan? = nil, seed: UInt64? = nil, transport: ScenarioTransport = .loopback
    ) -> ScenarioResult {
        run(
            file, certs: certs, providerUnderTest: ProviderUnderTest(setup: provider), transcript: transcript,
            replay: replay, seed: seed, transport: transport)
    }

    public static func run(
        _ file: SourceFile, certs: String, providerUnderTest provider: ProviderUnderTest? = nil,
        transcript: String? = nil, replay: ReplayPlan? = nil, seed: UInt64? = nil,
        transport: ScenarioTransport = .loopback
    ) -> ScenarioResult {
        let runner = ScenarioRunner(
            file: file, certs: certs, provider: provider, transcript: transcript, replay: replay)
        runner.seedOverride = seed
        runner.transport = transport
        return runner.run()
    }

    public func run() -> ScenarioResult {
        let started = Date()
        execute()
        // The judges hold the runner (they read its recorder and world): let go of them, or every
        // scenario's mock, provider log and clock file would live until the process ends.
        judgedLines = []
        atEnd = []
        result.seconds = Date().timeIntervalSince(started)
        return result
    }

    private func execute() {
        let checked = Checker.plan(file, provider: providerUnderTest)
        guard var plan = checked.plan else {
            result.diagnostics = checked.diagnostics
            return
        }
        result.name = plan.name
        result.teaches = plan.teaches
        result.obligation = plan.obligation
        result.basis = plan.basis
        if let providerUnderTest {
            if plan.pinsProvider, !providerUnderTest.alsoDemonstrations {
                result.skipped = .demonstration(provider: Self.describe(plan.provider))
                return
            }
            if !plan.notApplicable.isEmpty {
                result.skipped = .notApplicable(plan.notApplicable)
                return
            }
        }
        if let seedOverride { plan.seed = seedOverride }
        // Only a scenario that moves the clock moves the provider's: libfaketime in every curl made
        // one push in about thirty fail with exit 92 (an HTTP/2 stream error), in 45, 47 and 49.
        let advances = plan.steps.contains { if case .advance = $0.action { true } else { false } }
        if !plan.provider.isBuiltin, advances {
            providerClock = ProviderClock()
            if providerClock == nil, providerUnderTest != nil, !plan.pinsProvider {
                result.skipped = .notApplicable([ProviderClock.missing])
                return
            }
        }
        self.plan = plan
        do {
            defer { stop() }
            try start()
            for step in plan.steps {
                do {
                    host.stepBegins()
                    markStep(step)
                    // What the provider still pushes for earlier steps meets the world as those steps
                    // left it: a step that changes the phone, the clock or the mock waits for it.
                    if step.action.changesTheWorld, waiting.drivenAt != nil { _ = waiting.untilSettled() }
                    if step.action.drivesProvider { closeScopes() }
                    defer { if step.action.drivesProvider { waiting.providerDriven() } }
                    try perform(step)
                } catch let failure as StepFailure {
                    result.expectations.append(
                        .init(
                            range: step.range, passed: false, expected: failure.expected, happened: failure.happened,
                            chain: [], printed: failure.output, at: assembly.map { _ in now }))
                }
            }
            judgeAtEnd()
            judgeAgainAtEnd()
            requireSignsOfLife()
            noteFaultsNeverMet()
            // Failures in the order of the file: checks judged at the end are written anywhere.
            result.expectations = result.expectations.enumerated().sorted {
                ($0.element.range.start, $0.offset) < ($1.element.range.start, $1.offset)
            }.map(\.element)
            // A service that died during the scenario is a provider that cannot ring anyone.
            if let httpProvider, let status = httpProvider.exitedWith, case .http(let service) = plan.provider {
                result.expectations.append(
                    .init(
                        range: service.command.range, passed: false,
                        expected: "the http provider to run until the scenario ends",
                        happened: "it exited with \(status) during the scenario", chain: [],
                        printed: httpProvider.output))
            }
        } catch {
            result.error = "\(error)"
        }
    }

    // MARK: Setting up

    private var world: SharedWorld { assembly.world }
    private var clock: any AdvanceableClock { host.clock }

    private func start() throws {
        if transport == .memory, !ScenarioTransport.canRunInMemory(plan) {
            throw ScenarioTransport.NeedsASocket()
        }
        var options = MockOptions(certs: certs)
        options.validation.environment = plan.apns.environment
        options.validation.profile = plan.apns.profile
        options.plaintext = plan.apns.transport == .cleartext
        options.seed = plan.seed
        options.worldSettings = plan.world.settings
        for rule in plan.apns.folklore { options.worldSettings.folklore.enable(rule) }
        options.acceptsUnknownTokens = plan.world.acceptsUnknownTokens
        options.server.port = 0
        options.replay = replay
        // The judges read the world's record of the scenario's pushes: a scenario keeps as many as
        // the world ever kept, not `serve`'s default. A load is counted as it goes (LoadTally.swift):
        // its scenario keeps the stories of as many pushes as its recording keeps requests (past
        // them only `expect load` judges, `recordingCut`), which a long load reaches in its first
        // seconds, not as it goes on (`bench/load.sh`'s soak).
        let hasLoad = plan.steps.contains { if case .load = $0.action { true } else { false } }
        options.kept = hasLoad ? PushRecorder.keptInALoad : Self.keptPushes
        // One event loop, or one a lane of a load (`LoadRun.lanes`): the built-in provider's two
        // connections are then served on two threads. On one, the mock's thread was the load's
        // limit while the machine had a core half idle: 58,000 calls a second against 66,000 in
        // `bench/load.sh` (600,000 calls over 60,000 phones, three runs each).
        options.server.workers = hasLoad ? LoadRun.lanes : 1
        // The recorder keeps what the judges read; a scenario's mock has no `GET /transcript`.
        options.keepsTranscript = false
        host = try ScenarioMock(options, transport: transport)
        let activity = SeenFromOutside(recorder: recorder, children: children)
        waiting = Waiting(
            clock: host, activity: activity, settlesWithin: plan.settlesWithin, inProcess: providerIsInProcess,
            isService: isService)
        assembly.mock.addObserver(recorder)
        if let transcriptPath {
            let writer = try TranscriptWriter(path: transcriptPath)
            transcript = writer
            assembly.mock.addObserver(writer)
        }
        try host.start()
        for (index, phone) in plan.phones.enumerated() {
            let id = world.withWorld { $0.addPhone(name: phone.name, online: phone.online, apps: phone.apps, at: now) }
            precondition(id == index, "the world numbers phones in the order they are added")
        }
        provider = try startProvider()
        activity.service = httpProvider?.marker
    }

    private var now: Double { clock.now().world }

    private func startProvider() throws -> any ProviderDriver {
        switch plan.provider {
        case .builtin(let profile):
            let authentication: ClientConfiguration.Authentication
            switch plan.apns.authentication {
            case .certificate:
                let name = plan.apns.certificate.rawValue
                authentication = .certificate(
                    certificateFile: certs + "/client-\(name).pem", keyFile: certs + "/client-\(name).key")
            case .token:
                authentication = .token(
                    keyFile: certs + "/AuthKey_\(ProviderContract.keyId).p8", keyId: ProviderContract.keyId,
                    teamId: ProviderContract.teamId)
            }
            let configuration =
                host.embedded?.clientConfiguration(
                    caFile: certs + "/ca.pem", authentication: authentication, timeout: 5)
                ?? ClientConfiguration(
                    url: assembly.url, caFile: certs + "/ca.pem", authentication: authentication, timeout: 5)
            let reference = try ReferenceProvider(
                configuration: configuration, bundleId: ProviderContract.topic, profile: profile)
            // Back-off is real but short in scenarios: a suite must stay fast (the delays are recorded).
            reference.sleep = { [host] in host!.pause(min($0, 0.05)) }
            return reference
        case .exec(let template):
            return ExecProvider(template: template, contract: try contractValues(), children: children)
        case .http(let service):
            let http = try HTTPServiceProvider(
                service: service, contract: try contractValues(), children: children)
            httpProvider = http
            return http
        }
    }

    /// The contract for adapters and `exec` steps, made once per scenario (one JWT, signed when first
    /// needed, as a provider would hold one).
    private func contractValues() throws -> ContractValues {
        if let contract { return contract }
        var environment = ProviderContract.environment(
            url: host.url, host: "127.0.0.1", port: host.port, certs: certs,
            certificate: plan.apns.certificate.rawValue)
        // `$RINGSIDE token …` in a command signs other JWTs (another key, an old iat).
        if let binary = Self.ringsideBinary { environment["RINGSIDE"] = binary }
        environment["RINGSIDE_CERTS"] = certs
        if let providerClock { environment = providerClock.environment(adding: environment) }
        let key = try ES256Key(
            pem: String(contentsOfFile: certs + "/AuthKey_\(ProviderContract.keyId).p8", encoding: .utf8))
        let jwt = try ProviderToken.sign(
            keyId: ProviderContract.keyId, teamId: ProviderContract.teamId,
            issuedAt: Int64(host.wall), key: key)
        let values = ContractValues(url: host.url, environment: environment, jwt: jwt, directory: directory)
        contract = values
        return values
    }
    private var contract: ContractValues?
    /// The provider's clock, moved with the scenario's (nil: the built-in provider, which reads the
    /// mock's clock, or no libfaketime here).
    private var providerClock: ProviderClock?

    /// The `ringside` binary for `$RINGSIDE` in commands: the one running, or `$RINGSIDE` when set
    /// (a test process runs scenarios in-process and names the binary).
    static let ringsideBinary: String? = {
        if let named = ProcessInfo.processInfo.environment["RINGSIDE"] { return named }
        guard let running = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        if running.hasSuffix("/ringside") { return running }
        // A test bundle runs beside the binary it was built with.
        let beside = URL(fileURLWithPath: running).deletingLastPathComponent().appendingPathComponent("ringside").path
        return FileManager.default.isExecutableFile(atPath: beside) ? beside : nil
    }()

    /// A pinned provider in a few words, for the line that says why a demonstration was skipped.
    static func describe(_ provider: ProviderSetup) -> String {
        switch provider {
        case .builtin(let profile): return "builtin: \(profile.rawValue)"
        case .exec: return "an exec command"
        case .http: return "an http service"
        }
    }

    /// For `{dir}` in adapter commands: the provider file's folder when the provider under test
    /// came from one, else the scenario file's.
    private var directory: String {
        if !plan.pinsProvider, let directory = providerUnderTest?.directory { return directory }
        return URL(fileURLWithPath: file.path).standardizedFileURL.deletingLastPathComponent().path
    }

    private func stop() {
        httpProvider?.stop()
        children.stopAll()
        let actions = provider?.actions ?? []
        if let host, !callStarts.isEmpty, !providerIsInProcess {
            result.reachedTheMock = host.connectionsAccepted > 0
            result.providerOutput = provider?.output ?? []
        }
        // The built-in provider's connection closes first: the server would otherwise wait out its
        // grace period for a client that is done (a second per scenario).
        provider = nil
        host?.stop()
        // Kept once the server has stopped: an event its threads were still emitting (a handshake
        // refused as the client gave up) is in. The reports draw it (Reports/Ladder.swift).
        guard let assembly else { return }
        result.recording.events = recorder.events
        result.recording.fates = assembly.world.withWorld { $0.pushes }
        result.recording.actions = actions
        result.recording.steps = stepMarks
        result.recording.clockJumps = clockJumps
        result.recording.callLines = callsById
        result.recording.endedAt = now
    }

    // MARK: Steps

    /// Notes a step for the report's timeline, as its line reads (expectations have their own rows
    /// when they fail; an advance is drawn as a break).
    private func markStep(_ step: Step) {
        if step.action.isExpectation { return }
        if case .advance = step.action { return }
        let drivesProvider = step.action.drivesProvider
        let line = step.range.start.line
        let lines = file.lines  // split once, when the file was read: never again per step
        guard lines.indices.contains(line - 1), assembly != nil else { return }
        // The step's line and its options (the lines indented under it), as written.
        let indent = lines[line - 1].prefix { $0 == " " }.count
        var parts: [String] = []
        for (offset, text) in lines[(line - 1)...].enumerated() {
            let depth = text.prefix { $0 == " " }.count
            if offset > 0, depth <= indent || text.allSatisfy({ $0 == " " }) { break }
            var part = text.dropFirst(depth)
            while part.last == " " { part = part.dropLast() }
            if offset == 0, part.hasPrefix("- ") { part = part.dropFirst(2) }
            parts.append(String(part))
        }
        stepMarks.append(
            ScenarioResult.StepMark(
                at: now, line: line, text: parts.joined(separator: ", "), drivesProvider: drivesProvider))
    }

    private func perform(_ step: Step) throws {
        switch step.action {
        case .register(let phone, let user, let app, let kind):
            let token = try token(of: phone, app: app, kind: kind)
            registered[phone.index, default: []].insert(token)
            try provider.register(user: user, token: token, kind: kind == .alert ? .alert : .voip)
        case .unregister(let phone, let user, let app, let kind):
            try provider.unregister(user: user, token: try token(of: phone, app: app, kind: kind))
        case .call(let user, let caller, let name, let phones):
            let callUUID = callIdGenerator.next().lowercased()
            if let name { callIds[name] = callUUID }
            let started = clock.now()
            callsById[callUUID] = step.range.start.line
            callPlacedAt[callUUID] = started.world
            // The caller waits from here: lateness is measured from the call, not from APNs's 200.
            let placedAt = started.world
            world.withWorld { $0.callPlaced(uuid: callUUID, at: placedAt) }
            for phone in phones {
                lastCall[phone] = (started.world, callUUID)
            }
            callStarts.append(started.wall)
            do {
                try provider.placeCall(to: user, callUUID: callUUID, caller: caller)
            } catch is StepFailure where refusedTheServer(since: started.wall) {
                // The provider refused to talk to a server it must not trust (an impostor's or an
                // expired certificate) and said so: curl's exit 60, a service's 500. That is the
                // right outcome, not a failure: teams must not learn to swallow errors. What it
                // then did is judged by the scenario's expectations.
            }
        case .app(let event, let phone, let app):
            let at = now
            world.withWorld { $0.apply(event, phone: phone.index, bundleId: app, at: at) }
        case .connectivity(let phone, let online):
            let at = now
            world.withWorld { $0.change(phone: phone.index, .online(online), at: at) }
        case .phoneState(let phone, let changes):
            let at = now
            world.withWorld { world in
                for change in changes { world.change(phone: phone.index, change, at: at) }
            }
        case .advance(let seconds):
            clockJumps.append(ScenarioResult.ClockJump(at: now, seconds: seconds, line: step.range.start.line))
            guard clock.advance(by: seconds) else {
                throw StepFailure(
                    expected: "the world clock to move",
                    happened: "it may run at most a century ahead of the wall clock",
                    output: [])
            }
            let at = now
            world.withWorld { $0.run(until: at) }
            let moment = clock.now()
            providerClock?.runsAhead(by: moment.world - moment.wall)
        case .wait(let seconds):
            host.pause(seconds)
        case .exec(let template):
            execRan = true
            // One command run to its end with the provider contract in its environment (what
            // `ringside record` records).
            let values = try contractValues()
            let command = template.filledForShell(values.placeholders)
            let run = try ShellCommand.run(command, environment: values.environment, timeout: 60, children: children)
            if run.status != 0 {
                throw StepFailure(
                    expected: "the command to succeed", happened: "it exited with \(run.status): \(command)",
                    output: run.output)
            }
        case .fault(let fault):
            // In a replay the recorded answers stand for the faults that made them; what happens to
            // connections (GOAWAY, certificates, SETTINGS) is not in the recording and is armed again.
            switch fault.spec.kind.action {
            case .answer, .drop, .delay, .staleConnections: if replay != nil { return }
            case .goaway, .lowerStreamsAfterRejection, .untrustedServerCertificate, .holdSettings: break
            }
            var spec = fault.spec
            if let phone = fault.phone {
                spec.match.deviceToken = try token(of: phone, app: fault.app, kind: fault.kind)
            }
            if fault.at != nil {
                // On the load's timeline: armed when its first call is placed (`runLoad`).
                timedFaults.append((step.range.start.line, fault, spec))
                return
            }
            try arm(fault, spec, line: step.range.start.line, from: now, wall: host.wall)
        case .expectAPNs(let expectation): judge(expectation, at: step.range, by: Judges.judge)
        case .expectPhone(let expectation): judge(expectation, at: step.range)
        case .expectProvider(let expectation): judge(expectation, at: step.range, by: Judges.judge)
        case .load(let loadPlan): try runLoad(loadPlan)
        case .expectLoad(let expectation):
            judge(expectation, at: step.range) { [self] check, expectation, evidence in
                guard let load else {
                    return ExpectationResult(
                        passed: false, expected: .loadFigure(check.option.key),
                        seen: .loadFigure("no load ran", worst: []))
                }
                return Judges.judge(check, expectation, load.tally.figures())
            }
        }
    }

    /// Arms a fault from world time `from` (wall time `wall`): for `lasting` seconds when it says so.
    private func arm(_ fault: FaultStep, _ spec: FaultSpec, line: Int, from: Double, wall: Double) throws {
        var spec = spec
        if let lasting = fault.lasting {
            spec.match.from = from
            spec.match.until = from + lasting
        } else if from > now {
            spec.match.from = from
        }
        if let problem = assembly.mock.arm(spec) {
            throw StepFailure(expected: "the fault to be armed", happened: problem, output: [])
        }
        let label = spec.kind.action.rawValue + (fault.lasting.map { " for \(String(format: "%g", $0)) s" } ?? "")
        armedFaults.append((line, spec.kind.action.rawValue, wall, label))
    }

    /// The scenario's transcript, when one is written: a load's summary goes in it.
    private var transcript: TranscriptWriter?

    /// `fault … at:` steps, armed when the load's first call is placed.
    private var timedFaults: [(line: Int, fault: FaultStep, spec: FaultSpec)] = []

    /// The scenario's load, once its calls are placed (`expect load` reads its figures).
    private var load: (run: LoadRun, tally: LoadTally)?
    private var callsStartedWall = 0.0

    /// Hears how far a load got, every second (`ringside run` shows it): its status lines, made
    /// only when asked for, and whether they are the last.
    public var progress: ((_ lines: () -> [String], _ final: Bool) -> Void)?

    /// A `load` step: the population, registered, then the calls at their rate (LoadRun.swift),
    /// counted as they go (LoadTally.swift).
    private func runLoad(_ loadPlan: LoadPlan) throws {
        var run = LoadRun(loadPlan)
        run.populate(world, seed: plan.seed, at: now)
        let tally = LoadTally(
            population: loadPlan.phones, tokens: run.callees, callPaths: plan.world.settings.callPaths)
        tally.connectionsBefore(Evidence(events: recorder.events).openedAt.count)
        // It watches to the scenario's end: `expect load` counts a push that came late too.
        assembly.mock.addObserver(tally)
        recorder.loadBegan()
        let say = progress
        // A load runs in real time: the built-in provider's back-off is slept whole (shortened, as
        // outside a load, a 503 storm met every try of the calls placed in it).
        let reference = provider as? ReferenceProvider
        let shortened = reference?.sleep
        reference?.sleep = { [host] in host!.pause($0) }
        defer { if let shortened { reference?.sleep = shortened } }
        // What it did is kept as the recording is (`recordingCut`).
        reference?.keptActions = 2 * PushRecorder.keptInALoad
        // The built-in provider pushes a load in lanes, a connection each, acting as one provider
        // (`ReferenceProvider.lanes`); what they did is its own once the load is done.
        var lanes: [any ProviderDriver] = [provider]
        var referenceLanes: [ReferenceProvider] = []
        if let reference {
            referenceLanes = try reference.lanes(LoadRun.lanes)
            lanes = referenceLanes
        }
        defer { reference?.endLanes(referenceLanes) }
        try run.register(
            world, with: lanes, at: { self.now }, clock: host,
            progress: say.map { say in
                { registered in
                    say({ ["load \(loadPlan.label): \(registered) of \(loadPlan.phones) phones registered"] }, false)
                }
            })
        waiting.providerDriven()
        // The load's timeline starts at its first call: its timed faults are armed for their moment.
        callsStartedWall = host.wall
        let callsStarted = now
        tally.began(at: callsStarted)
        for timed in timedFaults {
            let at = timed.fault.at ?? 0
            try arm(timed.fault, timed.spec, line: timed.line, from: callsStarted + at, wall: callsStartedWall + at)
        }
        timedFaults = []
        // A service is asked about several calls at once, as its users would. The built-in
        // provider's lanes are a worker each (its client is not shared between threads), each
        // pushing the calls due at once together, and an `exec` command one process a call (the
        // scenario's process tree is kept on one thread).
        let asked = lanes.map(UncheckedProvider.init)
        // A load a call stopped (a service that never answered it) is judged over the calls placed.
        defer { load = (run, tally) }
        try run.placeCalls(
            seed: plan.seed, clock: host, worldNow: { self.now },
            concurrency: provider is HTTPServiceProvider ? LoadRun.concurrentCalls : 1,
            // In memory the mock is driven on this thread (ScenarioMock.swift): the provider is too.
            batch: reference != nil ? LoadRun.callsAtOnce : 1, threaded: reference != nil && host.embedded == nil,
            lanes: lanes.count,
            noted: { calls in
                self.world.withWorld { world in
                    for call in calls { world.callPlaced(call.key, at: call.placedAt) }
                }
                tally.placed(calls)
                // What tells a call's pushes apart for the checks that read requests, kept while
                // the recording is (`recordingCut`).
                if self.recorder.dropped == 0 {
                    self.callStarts.append(contentsOf: repeatElement(self.host.wall, count: calls.count))
                }
                self.waiting.providerDriven()
            },
            ask: { calls, lane in try asked[lane].driver.placeCalls(calls, caller: "load-caller") },
            answered: { [clock] calls in tally.answered(calls, at: clock.now().world) },
            progress: say.map { say in
                { run, seconds in
                    say(
                        {
                            tally.figures().status(
                                label: loadPlan.label, of: loadPlan.calls, seconds: seconds, target: loadPlan.rate)
                        }, false)
                }
            })
        // The last calls were answered only now: the provider may push until it settles from here.
        waiting.providerDriven()
        // The load ends when every push it made has ended on its phone, or its caller has given up.
        _ = waiting.untilSettled()
        let deadline = host.wall + plan.world.settings.ringTimeout + 1
        runWorld()
        while world.withWorld({ $0.pendingCount }) > 0, host.wall < deadline {
            host.pause(Waiting.tick)
            runWorld()
        }
        let figures = tally.figures()
        say?({ ["load \(loadPlan.label): \(figures.summary)"] }, true)
        transcript?.note(event: "load-summary", figures.transcriptFields(label: loadPlan.label, of: loadPlan.calls))
        result.load = tally.series(label: loadPlan.label, summary: figures.summary)
        result.load?.faults = armedFaults.map { (max(0, Int(($0.at - callsStartedWall).rounded(.down))), $0.label) }
        if run.placed < loadPlan.calls {
            // Ctrl-C: what ran is judged below; the run itself does not pass.
            throw StepFailure(
                expected: "the load's \(loadPlan.calls) calls",
                happened:
                    "cut short by Ctrl-C after \(run.placed) of them; the expectations below judge the calls that were placed",
                output: [])
        }
    }

    /// Whether a TLS handshake the provider began failed on the certificates since `wall`.
    private func refusedTheServer(since wall: Double) -> Bool {
        Evidence(events: recorder.events).refusals.contains { refusal in
            refusal.at.wall >= wall && Evidence.failedOnCertificates(refusal.why)
        }
    }

    private func token(of phone: PhoneRef, app: String, kind: TokenKind) throws -> String {
        guard let token = world.withWorld({ $0.token(phone: phone.index, bundleId: app, kind: kind) }) else {
            throw StepFailure(
                expected: "\(phone.name) to have <\(app)> installed", happened: "it is not installed", output: [])
        }
        return token
    }

    /// Checks declared `.atEnd`, judged after the last step (`judgeAtEnd`).
    private var atEnd: [(range: SourceRange, within: Double?, absence: Bool, check: () -> ExpectationResult)] = []
    /// Faults armed, with their line and when: a failure says which the provider never met.
    private var armedFaults: [(line: Int, action: String, at: Double, label: String)] = []
    /// Indices in `result.expectations` of checks that expect absence (see `requireSignsOfLife`).
    private var absences: Set<Int> = []

    /// Judges `check` when its declaration says (`Judging`, ScenarioLanguage/Plan.swift) and records
    /// what it found; how long each waits is `waiting`'s. `within` lengthens a wait, never shortens
    /// one. What it found is judged again at the scenario's end (`judgeAgainAtEnd`).
    private func record(
        at range: SourceRange, within: Double?, judging: Judging, absence: Bool = false, settles: Bool,
        readsFates: Bool = false, _ check: @escaping (Scope?) -> ExpectationResult
    ) {
        let started = host.wall
        var found: ExpectationResult
        switch judging {
        case .atEnd:
            atEnd.append((range, within, absence, { check(nil) }))
            return
        case .afterQuiet:
            // A count, or what must not happen: once the provider has settled, not before `within`.
            let settled = waiting.untilSettled(notBefore: within.map { started + $0 })
            runWorld()
            found = settled ? check(nil) : notQuiet(check(nil))
        case .whenItHolds, .whenSettled:
            // Something that must happen: as soon as it holds, up to `within` or until the provider
            // has settled, whichever is later. Judged once more when nothing more can happen: the
            // world's ticker may have played the last events since (a pending push judged pending,
            // then finished, was a flaky red in the whole suite).
            found = waiting.untilHolds(
                before: waiting.deadline(within: within),
                { [self] in
                    runWorld()
                    return check(nil)
                }, holds: \.passed, next: { [self] in waitForTheNextEvent(before: $0, settles: settles) })
            if judging == .whenSettled, found.passed, !waiting.inProcess {
                // What came meanwhile may still be on its way (a push pending on the phone): once the
                // provider has settled, it is given the expectation's window again to end.
                let settled = waiting.untilSettled()
                let window = host.wall + (within ?? 0)
                runWorld()
                found = settled ? check(nil) : notQuiet(check(nil))
                while !found.passed, host.wall < window {
                    host.pause(Waiting.tick)
                    runWorld()
                    found = check(nil)
                }
            }
        }
        let waited = host.wall - started
        append(found, at: range, absence: absence, waited: waited)
        let scope = Scope(
            calls: Set(callsById.keys), judgedAt: clock.now(), until: nil,
            fatesAtLine: readsFates ? world.withWorld { $0.pushes } : [], paths: plan.world.settings.callPaths)
        judgedLines.append(JudgedLine(index: result.expectations.count - 1, scope: scope, check: check))
    }

    /// Why checks other than `expect load` cannot be judged: the load made more requests than the
    /// recording keeps (`PushRecorder.keptInALoad`); nil when it kept them all.
    private var recordingCut: String? {
        let dropped = recorder.dropped
        guard dropped > 0 || (provider as? ReferenceProvider)?.actionsNotKept ?? 0 > 0 else { return nil }
        return "the load made more requests than a scenario with a load keeps (\(PushRecorder.keptInALoad)): "
            + "past that only `expect load` judges (it counts as the load goes)"
    }

    /// A check judged at its line, to be judged again at the scenario's end over its scope.
    private struct JudgedLine {
        var index: Int
        var scope: Scope
        var check: (Scope?) -> ExpectationResult
    }
    private var judgedLines: [JudgedLine] = []

    /// A step that drives the provider begins: the lines judged so far own what came before it, and
    /// later only pushes for their calls (a world step — `advance`, `online:` — asks for no push).
    private func closeScopes() {
        let at = clock.now()
        for index in judgedLines.indices where judgedLines[index].scope.until == nil {
            judgedLines[index].scope.until = at
        }
    }

    private func append(_ found: ExpectationResult, at range: SourceRange, absence: Bool, waited: Double = 0) {
        var found = found
        if case .loadFigure = found.expected {
        } else if let cut = recordingCut {
            found = ExpectationResult(
                passed: false, expected: found.expected, seen: .notJudged(why: cut, soFar: found.seen))
        }
        if absence { absences.insert(result.expectations.count) }
        var happened = "\(found.seen)"
        if !found.passed, !waiting.inProcess { happened += waiting.howLong(waited) }
        result.expectations.append(
            .init(
                range: range, passed: found.passed, expected: "\(found.expected)", happened: happened,
                chain: found.chain, printed: found.passed ? [] : provider.output, at: now,
                notApplicable: found.notApplicable, pushes: found.pushes, cause: found.passed ? nil : found.cause))
    }

    /// One step of a check's wait. With the built-in provider, idle once its step has returned,
    /// nothing but the world's own schedule can happen before the check holds: the world clock moves
    /// to its next event (as `advance` would) instead of the runner sleeping until it is due. The
    /// phone's 50 ms delivery latency, slept, was most of the library's wall time (issue 30). The
    /// check's `within` still bounds it: no event beyond it is brought forward.
    /// Returns false when nothing can change before `deadline`: the built-in provider is idle, no
    /// `exec` step has run, the check reads only what the exchanges settled (`settles`), and the
    /// world has nothing scheduled within the window. Waiting on would only sleep: a failing `expect phone` took its whole 2 s
    /// (SchemaCoverageTests spent most of its 169 s so).
    private func waitForTheNextEvent(before deadline: Double, settles: Bool) -> Bool {
        if providerIsInProcess {
            let next = world.withWorld { $0.nextEventAt }
            let skip = next.map { $0 - now }
            // A command an `exec` step started may still push: one left in the background is found
            // by its environment, which `env -i` clears (an adversary's false red), so after any
            // `exec` step the check waits out its window. A handshake the server has not finished
            // may still be refused (a failure names it).
            let left = deadline - host.wall
            if settles, !execRan, skip.map({ $0 > left }) ?? true, everyConnectionSettled {
                return false
            }
            if let skip, skip > 0, skip <= left, clock.advance(by: skip) { return true }
        }
        host.pause(0.01)
        return true
    }

    /// Whether every connection the mock accepted has been opened or refused, as its observers heard.
    private var everyConnectionSettled: Bool {
        let evidence = Evidence(events: recorder.events)
        return UInt64(evidence.openedAt.count + evidence.refusals.count) >= host.connectionsAccepted
    }

    private func runWorld() {
        let at = now
        world.withWorld { $0.run(until: at) }
    }

    /// The checks that count over the whole scenario, after its last step: once the provider has
    /// settled (it may still push for the last steps), and not before the longest of their `within`s.
    private var settledAtEnd = true

    private func judgeAtEnd() {
        let started = host.wall
        let longest = atEnd.compactMap(\.within).max()
        settledAtEnd = waiting.untilSettled(notBefore: longest.map { started + $0 })
        runWorld()
        for pending in atEnd {
            append(
                settledAtEnd ? pending.check() : notQuiet(pending.check()), at: pending.range,
                absence: pending.absence, waited: host.wall - started)
        }
        atEnd = []
    }

    /// Every verdict taken at its line is judged again after the last step, against everything
    /// recorded that is the line's (`Scope`): a count that held at its line and was broken by a
    /// push that came later — a job queue's redelivery, a push to a logged-out phone after its
    /// worker woke — fails, naming the late push.
    private func judgeAgainAtEnd() {
        if let cut = recordingCut {
            for line in judgedLines where result.expectations[line.index].passed {
                result.expectations[line.index].passed = false
                result.expectations[line.index].happened =
                    "it held at its line, but cannot be judged again at the end: \(cut)"
            }
            return
        }
        let records = Evidence(events: recorder.events).records
        for line in judgedLines where result.expectations[line.index].passed {
            let again = line.check(line.scope)
            guard !again.passed else { continue }
            let late = line.scope.late(records)
            var happened =
                "it held at its line, but not once the provider had settled at the scenario's end: \(again.seen)"
            if let first = late.first {
                happened +=
                    "; the push that came after the line was judged: \(SeenPush.late(first, after: first.at.wall - line.scope.judgedAt.wall))"
                    + (late.count > 1 ? " (and \(late.count - 1) more)" : "")
            }
            if !settledAtEnd { happened += "; the provider was still busy at the end" }
            result.expectations[line.index].passed = false
            result.expectations[line.index].happened = happened
            result.expectations[line.index].chain = again.chain
            result.expectations[line.index].printed = provider.output
            result.expectations[line.index].cause = again.cause
            if !late.isEmpty { result.expectations[line.index].pushes = late.prefix(8).map(PushReference.init) }
        }
    }

    /// That nothing happened proves something only of a provider that did something: an
    /// expectation of absence counts when the provider pushed to someone in the scenario (or tried
    /// to, and a TLS handshake was refused); otherwise it fails and says why.
    private func requireSignsOfLife() {
        guard !absences.isEmpty else { return }
        // A refused handshake is reported by the server's thread and may come a moment after the
        // step that caused it (seen under load in CI): a scenario that looks dead gets a second.
        var alive: Bool { Evidence(events: recorder.events).showsSignsOfLife }
        let deadline = host.wall + 1
        while !alive, host.wall < deadline { host.pause(0.01) }
        guard !alive else { return }
        for index in absences where result.expectations[index].passed {
            result.expectations[index].passed = false
            result.expectations[index].happened =
                "nothing to judge: the provider sent no push to anyone in this scenario, and an expectation that something did not happen counts only of a provider that showed signs of life"
            result.expectations[index].printed = provider.output
        }
    }

    /// A requirement's fault that no push met — the provider opened a new connection, or sent
    /// nothing, and so escaped the sick one — is said in words beside each failure: the
    /// requirement did not test what it meant to.
    private func noteFaultsNeverMet() {
        guard result.expectations.contains(where: { !$0.passed }) else { return }
        let events = recorder.events
        var unmet: [String] = []
        for fault in armedFaults {
            let met = events.contains { event in
                switch event {
                case .push(let record): return record.at.wall >= fault.at && record.fault != nil
                case .goAway(_, _, _, let at): return at.wall >= fault.at && fault.action == "goaway"
                case .connectionRefused(_, _, let at), .connectionOpened(_, _, _, _, let at):
                    // The impostor's certificate, and held SETTINGS, meet every connection made after
                    // the fault was armed.
                    return at.wall >= fault.at
                        && (fault.action == "untrusted-server-certificate" || fault.action == "hold-settings")
                case .settings(_, _, _, let at), .streamRefused(_, _, _, let at):
                    return at.wall >= fault.at && fault.action == "lower-streams-after-rejection"
                default: return false
                }
            }
            if !met { unmet.append("line \(fault.line) (\(fault.action))") }
        }
        guard !unmet.isEmpty else { return }
        let evidence = Evidence(events: events)
        let connections = evidence.openedAt.count
        let pushes = evidence.records.count
        let never = connections == 0 && evidence.refusals.isEmpty
        let faults = unmet.joined(separator: ", ")
        let how =
            "(\(pushes) push\(pushes == 1 ? "" : "es") on \(connections) connection\(connections == 1 ? "" : "s"):"
            + (connections >= pushes && pushes > 2
                ? " a provider that opens a new connection for each push escapes a sick one)"
                : connections >= pushes && pushes > 1
                    ? " a provider that opens a new connection for each push, or closes an idle connection and opens another, escapes a sick one)"
                    : " a provider that closes an idle connection and opens another escapes a sick one)")
        let note =
            never
            ? "; the fault armed at \(faults) never met a push: the provider never connected to the fake APNs (does it read APNS_URL and APNS_CA_FILE?)"
            : "; the fault armed at \(faults) never met a push of the provider's \(how)"
        for index in result.expectations.indices where !result.expectations[index].passed {
            result.expectations[index].happened += note
        }
        if providerUnderTest != nil, !never { excuseUnmetFault(faults, how: how) }
    }

    /// A requirement whose fault the provider never met, where every call still rang and only what
    /// APNs answered differs (the answers the fault would have given), did not test the provider:
    /// it is not applicable, and says why — aioapns closes a connection idle for 10 s, so scenario
    /// 22's sick connection is never used (issue 45's new-user trial). A provider that pushes
    /// nothing fails its `expect phone` and is not excused.
    private func excuseUnmetFault(_ faults: String, how: String) {
        func action(_ expectation: ScenarioResult.Expectation) -> Step.Action? {
            plan.steps.first { $0.range.start == expectation.range.start }?.action
        }
        var phones = 0
        for expectation in result.expectations {
            switch action(expectation) {
            case .expectPhone:
                guard expectation.passed else { return }
                phones += 1
            case .expectAPNs: continue
            default: guard expectation.passed else { return }
            }
        }
        let failed = result.expectations.filter { !$0.passed }
        guard phones > 0, !failed.isEmpty else { return }
        let unseen = failed.map { "line \($0.range.start.line): \($0.expected)" }.joined(separator: "; ")
        result.skipped = .notApplicable([
            "the provider never met the fault armed at \(faults) \(how); every call rang, so what it does when it meets that fault could not be judged (not seen: \(unseen))"
        ])
        result.expectations.removeAll { !$0.passed }
    }

    /// Whether the provider is the built-in one, which has sent (and been answered) before a step ends.
    private var providerIsInProcess: Bool {
        if case .builtin = plan.provider { return true }
        return false
    }

    /// Whether the provider is a long-running service: quiet only once the mock has seen nothing of it.
    private var isService: Bool {
        if case .http = plan.provider { return true }
        return false
    }

    /// A check whose provider never went quiet is not judged as if it had: what it still does is
    /// unseen, so it fails and says so (a longer `within` waits longer).
    private func notQuiet(_ found: ExpectationResult) -> ExpectationResult {
        ExpectationResult(
            passed: false, expected: found.expected,
            seen: .notJudged(
                why:
                    "the provider was still busy (a command it started still ran, or its service kept sending) \(Int(Waiting.longestQuietWait)) s after it should have settled; give it a longer `settles-within` or the expectation a longer `within`",
                soFar: found.seen),
            chain: found.chain, pushes: found.pushes)
    }

    /// Pushes whose outcome a scenario's world remembers (a 1 MiB scenario makes fewer calls).
    static let keptPushes = 100_000

    // MARK: Expectations

    /// What the scenario recorded so far, for the judges (Judges.swift): the mock's events, what the
    /// provider said it did, and the tokens the step named, as they were at the step.
    private func evidence(tokens: [Int: Set<String>] = [:], scope: Scope? = nil) -> Evidence {
        var events = recorder.events
        if let scope { events = events.filter(scope.admits) }
        var evidence = Evidence(events: events)
        evidence.actions = provider.actions
        evidence.callStarts = callStarts
        evidence.callPaths = plan.world.settings.callPaths
        evidence.tokens = tokens
        return evidence
    }

    /// Each check the expectation declares, judged when its declaration says, by `judge`.
    private func judge<Expectation: ExpectationWithChecks>(
        _ expectation: Expectation, at range: SourceRange,
        by judge: @escaping (Expectation.Check, Expectation, Evidence) -> ExpectationResult
    ) {
        for check in expectation.checks {
            record(
                at: range, within: expectation.window(check), judging: expectation.judging(check),
                absence: expectation.expectsAbsence(check), settles: expectation.settlesWithTheProvider(check)
            ) { [self] scope in
                // The phone's tokens when judged: a check judged at the end reads the tokens of the
                // end (a `reinstall` after the line gave it another).
                let named = expectation.phone.map { [$0.index: tokens(of: $0.index)] } ?? [:]
                return judge(check, expectation, evidence(tokens: named, scope: scope))
            }
        }
    }

    private func judge(_ expectation: PhoneExpectation, at range: SourceRange) {
        let id = expectation.phone.index
        let named = expectation.call.flatMap { callIds[$0] }
        let call = CallContext(
            named: named, latest: lastCall[id], lines: callsById, namedAt: named.flatMap { callPlacedAt[$0] },
            callIdPath: plan.world.settings.callPaths?.callId.map(CallPaths.written))
        // The phone's story is the world's: settled once the provider's requests were answered.
        record(at: range, within: expectation.within, judging: expectation.judging, settles: true, readsFates: true) {
            [self] scope in
            var evidence = evidence(scope: scope)
            let fates = world.withWorld { $0.pushes }
            evidence.fates = (scope?.fates(atEnd: fates) ?? fates).filter { $0.phone == id }
            // Asked only when no push reached the phone: which tokens APNs answered for.
            evidence.tokens[id] = tokens(of: id)
            return Judges.judge(expectation, call: call, evidence)
        }
    }

    /// Every token of the phone: those handed to the provider, those its apps have now, those its
    /// pushes went to.
    private func tokens(of id: Int) -> Set<String> {
        let known = world.withWorld { w in
            w.pushes.filter { $0.phone == id }.map(\.token)
                + w.phones[id].apps.flatMap { [$0.voipToken.description, $0.alertToken.description] }
        }
        return Set((known + (registered[id] ?? [])).map { $0.lowercased() })
    }
}

extension Step.Action {
    var isExpectation: Bool {
        switch self {
        case .expectAPNs, .expectPhone, .expectProvider: return true
        default: return false
        }
    }

    /// Whether the step changes what a push meets — the phone, its apps, the clock, the mock's faults.
    var changesTheWorld: Bool {
        switch self {
        case .app, .connectivity, .phoneState, .advance, .fault: return true
        default: return false
        }
    }

    /// Whether the step asks the provider to do something: it may push for it until it settles.
    var drivesProvider: Bool {
        switch self {
        case .register, .unregister, .call, .exec, .load: return true
        default: return false
        }
    }
}

/// The provider as the runner sees it from outside: the mock's latest event, and whether a process
/// its commands started still runs.
final class SeenFromOutside: ProviderActivity {
    let recorder: PushRecorder
    let children: Children
    /// The http service's own processes, which run for the whole scenario: not a command still busy.
    var service: String?

    init(recorder: PushRecorder, children: Children) {
        self.recorder = recorder
        self.children = children
    }

    var lastEventAt: Double { recorder.lastEventAt }
    var commandsRunning: Bool { children.anyRunning(except: service) }
}

/// Keeps every event the mock reported but outcomes (the world keeps those), in order: what the
/// judges read and the report's diagram draws.
final class PushRecorder: MockObserver, Sendable {
    private struct State {
        var kept: [MockEvent] = []
        /// Wall time of the latest event (a request, a connection), for waiting until the provider is quiet.
        var lastEvent = 0.0
        /// Whether a load has begun: from then on, past `keptInALoad` events, requests are counted, not kept.
        var loading = false
        var dropped = 0
    }

    private let state = Mutex(State())

    /// The most events a scenario with a load keeps: a long steady load (`bench/load.sh`'s soak)
    /// would otherwise hold every request it made. `expect load` counts as it goes (LoadTally.swift).
    static let keptInALoad = 50_000

    func observe(_ event: MockEvent) {
        if case .outcome = event { return }
        let now = Date().timeIntervalSince1970
        state.withLock {
            $0.lastEvent = now
            if $0.loading, $0.kept.count >= Self.keptInALoad, case .push = event {
                $0.dropped += 1
            } else {
                $0.kept.append(event)
            }
        }
    }

    func loadBegan() { state.withLock { $0.loading = true } }

    /// Requests a load made past what is kept: a check that reads requests cannot be judged then.
    var dropped: Int { state.withLock { $0.dropped } }

    var events: [MockEvent] { state.withLock { $0.kept } }

    var lastEventAt: Double { state.withLock { $0.lastEvent } }
}
