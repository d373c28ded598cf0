import APNs
import Foundation
import HTTP2Server
import MockAPNs
import Provider
import ScenarioLanguage
import World

/// Runs one checked scenario: a mock on a free port with its own world, the provider driven through
/// its adapter, the steps in order, every expectation evaluated, everything stopped at the end.
public final class ScenarioRunner {
    let file: SourceFile
    let certs: String
    private var world: SharedWorld!
    private var clock = SystemClock()
    private var mock: MockAPNs!
    private var server: HTTP2Server!
    private var provider: (any ProviderDriver)!
    /// The `http` provider's process, stopped with the scenario (also on failure).
    private var httpProvider: HTTPServiceProvider?
    private let recorder = PushRecorder()
    /// Which test client certificate the provider gets (`apns: certificate:`).
    private var certificate = "voip"
    private var phoneIds: [String: Int] = [:]
    private var calls: [String: [String]] = [:]
    private var result: ScenarioResult

    /// Runs every scenario with this provider profile instead of the one it names (to see a broken
    /// provider fail at the right line).
    let providerOverride: ProviderProfile?

    /// Where to write this scenario's JSONL transcript, if anywhere.
    let transcriptPath: String?
    /// Recorded answers to serve instead of judging (`ringside replay`).
    let replay: ReplayPlan?
    /// Overrides the scenario's `seed:` (`ringside run --seed`).
    public var seedOverride: UInt64?

    public init(
        file: SourceFile, certs: String, provider: ProviderProfile? = nil, transcript: String? = nil,
        replay: ReplayPlan? = nil
    ) {
        self.file = file
        self.certs = certs
        providerOverride = provider
        transcriptPath = transcript
        self.replay = replay
        result = ScenarioResult(path: file.path, name: file.path)
    }

    public static func run(
        _ file: SourceFile, certs: String, provider: ProviderProfile? = nil, transcript: String? = nil,
        replay: ReplayPlan? = nil, seed: UInt64? = nil
    ) -> ScenarioResult {
        let runner = ScenarioRunner(
            file: file, certs: certs, provider: provider, transcript: transcript, replay: replay)
        runner.seedOverride = seed
        return runner.run()
    }

    public func run() -> ScenarioResult {
        let started = Date()
        execute()
        result.seconds = Date().timeIntervalSince(started)
        return result
    }

    private func execute() {
        let problems = Checker.check(file)
        guard problems.isEmpty, case .success(let root) = Parser.parse(file) else {
            result.diagnostics = problems
            return
        }
        if case .scalar(let name)? = root.value("scenario") { result.name = name.text }
        if case .scalar(let teaches)? = root.value("teaches") { result.teaches = teaches.text }
        do {
            try start(root)
            defer { stop() }
            if case .sequence(let steps)? = root.value("steps") {
                for step in steps.items {
                    guard case .mapping(let mapping) = step else { continue }
                    try perform(mapping)
                }
            }
        } catch {
            result.error = "\(error)"
        }
    }

    // MARK: Setting up

    private func start(_ root: Mapping) throws {
        var settings = WorldSettings()
        var seed: UInt64 = 1
        if case .scalar(let text)? = root.value("seed") { seed = UInt64(Double(text.text) ?? 1) }
        if let seedOverride { seed = seedOverride }
        var validation = ValidationSettings()
        var certificateAuth = false
        if case .mapping(let apns)? = root.value("apns") {
            if let environment = text(apns, "environment").flatMap(APNsEnvironment.init(rawValue:)) {
                validation.environment = environment
            }
            if let profile = text(apns, "profile").flatMap(ValidationSettings.Profile.init(rawValue:)) {
                validation.profile = profile
            }
            certificateAuth = text(apns, "auth") == "certificate"
            certificate = text(apns, "certificate") ?? "voip"
            for rule in list(apns, "folklore") {
                switch rule {
                case "dead-token-penalty": settings.folklore.deadTokenPenalty = 3
                case "daily-voip-budget": settings.folklore.dailyVoIPBudget = 10
                case "force-quit-blocks-voip": settings.folklore.forceQuitBlocksVoIP = true
                default: break
                }
            }
        }
        if case .mapping(let numbers)? = root.value("world") {
            if let delay = text(numbers, "unregister-delay").flatMap(parseDuration) { settings.unregisterDelay = delay }
            if let limit = text(numbers, "unreported-limit").flatMap(Int.init) { settings.unreportedLimit = limit }
            if let timeout = text(numbers, "ring-timeout").flatMap(parseDuration) { settings.ringTimeout = timeout }
            if let latency = text(numbers, "delivery-latency").flatMap(parseDuration) {
                settings.deliveryLatency = latency
            }
            if let rate = text(numbers, "throttle").flatMap(parseRate) {
                settings.throttle =
                    rate.count == 0 ? nil : WorldSettings.Throttle(count: rate.count, window: rate.window)
            }
        }
        world = SharedWorld(settings: settings, seed: seed)
        if case .mapping(let numbers)? = root.value("world"), text(numbers, "accept-unknown-tokens") == "true" {
            world.acceptsUnknownTokens = true
        }
        var configuration = MockConfiguration(validation: validation, keys: try KeyStore.load(directory: certs))
        configuration.world = world
        configuration.clock = clock
        configuration.seed = seed
        configuration.replay = replay
        mock = MockAPNs(configuration: configuration)
        mock.addObserver(recorder)
        if let transcriptPath { mock.addObserver(try TranscriptWriter(path: transcriptPath)) }
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.port = 0
        serverConfiguration.workers = 1
        serverConfiguration.tls = try TLSContext(
            certificateFile: certs + "/server.pem", keyFile: certs + "/server.key", trustedCAFile: certs + "/ca.pem",
            clientCertificates: .optional)
        server = HTTP2Server(configuration: serverConfiguration, service: mock)
        try server.start()
        world.startTicking(clock: clock)

        if case .sequence(let phones)? = root.value("phones") {
            for case .mapping(let phone) in phones.items {
                let name = text(phone, "name") ?? "phone"
                var specs: [AppSpec] = []
                if case .sequence(let apps)? = phone.value("apps") {
                    for case .mapping(let app) in apps.items {
                        let behaviour =
                            AppBehaviour.named(
                                text(app, "behaviour") ?? "reports-at-once",
                                seconds: text(app, "round-trip").flatMap(parseDuration) ?? 2,
                                blocking: text(app, "blocking") == "true") ?? .reportsAtOnce
                        specs.append(
                            AppSpec(
                                bundleId: text(app, "bundle") ?? ProviderContract.topic,
                                ios: text(app, "ios").flatMap(OSVersion.init) ?? OSVersion(18), behaviour: behaviour,
                                environment: text(app, "environment").flatMap(APNsEnvironment.init(rawValue:))
                                    ?? validation.environment,
                                isEntitled: text(app, "entitled") != "false"))
                    }
                }
                if specs.isEmpty {
                    specs = [AppSpec(bundleId: ProviderContract.topic, environment: validation.environment)]
                }
                let online = text(phone, "online") != "false"
                phoneIds[name] = world.withWorld {
                    $0.addPhone(name: name, online: online, apps: specs, at: clock.now().world)
                }
            }
        }

        var profile = ProviderProfile.reference
        var execTemplate: String?
        if case .mapping(let providerBlock)? = root.value("provider") {
            if let builtin = text(providerBlock, "builtin").flatMap(ProviderProfile.init(rawValue:)) {
                profile = builtin
            }
            execTemplate = text(providerBlock, "exec")
        }
        if let providerOverride {
            profile = providerOverride
            execTemplate = nil
        }
        let url = "https://127.0.0.1:\(server.port)"
        if let execTemplate {
            let key = try ES256Key(
                pem: String(contentsOfFile: certs + "/AuthKey_\(ProviderContract.keyId).p8", encoding: .utf8))
            let jwt = try ProviderToken.sign(
                keyId: ProviderContract.keyId, teamId: ProviderContract.teamId,
                issuedAt: Int64(Date().timeIntervalSince1970), key: key)
            provider = ExecProvider(
                template: execTemplate.replacingOccurrences(of: "{dir}", with: directory),
                environment: contract(url: url),
                jwt: jwt)
            return
        }
        let authentication: ClientConfiguration.Authentication =
            certificateAuth
            ? .certificate(
                certificateFile: certs + "/client-\(certificate).pem", keyFile: certs + "/client-\(certificate).key")
            : .token(
                keyFile: certs + "/AuthKey_\(ProviderContract.keyId).p8", keyId: ProviderContract.keyId,
                teamId: ProviderContract.teamId)
        let reference = try ReferenceProvider(
            configuration: ClientConfiguration(
                url: url, caFile: certs + "/ca.pem", authentication: authentication, timeout: 5),
            bundleId: ProviderContract.topic, profile: profile)
        // Back-off is real but short in scenarios: a suite must stay fast (the delays are recorded).
        reference.sleep = { usleep(UInt32(min($0, 0.05) * 1_000_000)) }
        provider = reference
    }

    /// The scenario file's directory, for `{dir}` in adapter commands.
    private var directory: String {
        URL(fileURLWithPath: file.path).standardizedFileURL.deletingLastPathComponent().path
    }

    /// The provider contract (DESIGN.md) for an adapter's environment.
    private func contract(url: String) -> [String: String] {
        ProviderContract.environment(
            url: url, host: "127.0.0.1", port: server.port, certs: certs, certificate: certificate)
    }

    /// The sequence diagram: requests and answers from the mock's records, the phone's outcomes from
    /// the world, and the failed expectations at the time they were checked.
    private func buildLadder() {
        guard let world else { return }
        var events: [ScenarioResult.LadderEvent] = []
        for record in recorder.records {
            let token = record.request.deviceToken.map { String($0.prefix(6)) + "…" } ?? "?"
            events.append(
                .init(
                    at: record.at.world, from: .provider, to: .apns,
                    label: "\(record.request.method ?? "?") /3/device/\(token) \(record.request.pushType ?? "")",
                    failed: false))
            let answer =
                record.status == 0
                ? (record.fault ?? "no answer") : "\(record.status) \(record.rejection?.reason.wire ?? "")"
            events.append(
                .init(at: record.at.world, from: .apns, to: .provider, label: answer, failed: record.status >= 400))
        }
        for refusal in recorder.refusals {
            events.append(
                .init(at: refusal.at.world, from: .provider, to: .apns, label: "TLS handshake", failed: false))
            events.append(
                .init(at: refusal.at.world, from: .apns, to: .provider, label: "refused: \(refusal.why)", failed: true))
        }
        for fate in world.withWorld({ $0.pushes }) {
            if let delivered = fate.deliveredAt {
                events.append(
                    .init(
                        at: delivered, from: .apns, to: .phone, label: "VoIP push \(fate.callUUID ?? "")", failed: false
                    ))
            }
            if fate.outcome.isFinal {
                let label = "\(fate.outcome.kind)\(fate.outcome.reason.map { " (\($0))" } ?? "")"
                events.append(
                    .init(
                        at: fate.finishedAt ?? fate.sentAt, from: .phone, to: .phone, label: label,
                        failed: !["rang"].contains(fate.outcome.kind)))
            }
        }
        for expectation in result.expectations where !expectation.passed {
            events.append(
                .init(
                    at: clock.now().world, from: .provider, to: .phone,
                    label:
                        "✘ line \(expectation.range.start.line): expected \(expectation.expected); happened: \(expectation.happened)",
                    failed: true))
        }
        result.ladder = events.sorted { $0.at < $1.at }
    }

    private func stop() {
        buildLadder()
        httpProvider?.stop()
        world?.stopTicking()
        server?.stop()
    }

    // MARK: Steps

    private func perform(_ step: Mapping) throws {
        guard let first = step.entries.first, case .scalar(let argument) = first.value else { return }
        let now = clock.now().world
        let phone = argument.text
        switch first.key {
        case "register":
            guard let id = phoneIds[phone] else { return missingPhone(phone, first.keyRange) }
            let kind: TokenKind = text(step, "token") == "alert" ? .alert : .voip
            let bundle = text(step, "app") ?? ProviderContract.topic
            if let token = world.withWorld({ $0.token(phone: id, bundleId: bundle, kind: kind) }) {
                provider.register(user: text(step, "as") ?? phone, token: token, kind: kind == .alert ? .alert : .voip)
            }
        case "unregister":
            guard let id = phoneIds[phone] else { return missingPhone(phone, first.keyRange) }
            if let token = world.withWorld({ $0.token(phone: id, bundleId: ProviderContract.topic, kind: .voip) }) {
                provider.unregister(token: token)
            }
        case "call":
            let ids = try provider.placeCall(
                to: phone, callUUID: UUID().uuidString.lowercased(), caller: text(step, "from") ?? "caller")
            calls[text(step, "as") ?? "last"] = ids
            calls["last"] = ids
        case "reinstall", "uninstall":
            guard let id = phoneIds[phone] else { return missingPhone(phone, first.keyRange) }
            let event: World.AppEvent = first.key == "reinstall" ? .reinstall : .uninstall
            world.withWorld {
                $0.apply(event, phone: id, bundleId: text(step, "app") ?? ProviderContract.topic, at: now)
            }
        case "offline", "online":
            guard let id = phoneIds[phone] else { return missingPhone(phone, first.keyRange) }
            world.withWorld { $0.change(phone: id, .online(first.key == "online"), at: now) }
        case "advance":
            clock.advance(by: parseDuration(phone) ?? 0)
            world.withWorld { $0.run(until: clock.now().world) }
        case "wait":
            usleep(UInt32(min(parseDuration(phone) ?? 0, 10) * 1_000_000))
        case "fault":
            armFault(phone, step)
        case "exec":
            // One command run to its end with the provider contract in its environment (what
            // `ringside record` recorded).
            try ShellCommand.run(
                argument.text, environment: contract(url: "https://127.0.0.1:\(server.port)"), timeout: 60,
                what: "the command")
        case "expect phone": expectPhone(phone, step, range: first.keyRange)
        case "expect apns": expectAPNs(step, range: first.keyRange)
        case "expect provider": expectProvider(step, range: first.keyRange)
        default: break
        }
    }

    private func missingPhone(_ name: String, _ range: SourceRange) {
        result.expectations.append(
            .init(
                range: range, passed: false, expected: "a phone named <\(name)>",
                happened: "no such phone in `phones:`", chain: []))
    }

    private func armFault(_ what: String, _ step: Mapping) {
        let plan = mock.configuration.faults
        let count = text(step, "count").flatMap(Int.init) ?? 1
        let match = FaultPlan.Match(deviceToken: text(step, "token"))
        switch what {
        case "drop": plan.arm(.init(action: .drop, count: count, match: match))
        case "delay":
            plan.arm(
                .init(action: .delay(text(step, "seconds").flatMap(parseDuration) ?? 1), count: count, match: match))
        case "goaway":
            plan.arm(
                .init(
                    action: .goAwayAfterAccepted(text(step, "after-accepted").flatMap(Int.init) ?? 1, .shutdown),
                    match: match))
        case "stale-connections": plan.staleAfterIdle = text(step, "seconds").flatMap(parseDuration) ?? 60
        case "lower-streams-after-rejection": plan.lowerStreamsAfterRejection = true
        default:
            if let reason = Reason(wire: what) { plan.arm(.init(action: .answer(reason), count: count, match: match)) }
        }
    }

    // MARK: Expectations

    private func expectPhone(_ phone: String, _ step: Mapping, range: SourceRange) {
        guard let id = phoneIds[phone] else { return missingPhone(phone, range) }
        let expected = text(step, "outcome") ?? "rang"
        let reason = text(step, "reason")
        let deadline = Date().addingTimeInterval(text(step, "within").flatMap(parseDuration) ?? 2)
        let ids = text(step, "call").flatMap { calls[$0] }
        var fate: PushFate?
        repeat {
            world.withWorld { $0.run(until: clock.now().world) }
            fate = world.withWorld { w in
                w.pushes.last { push in push.phone == id && (ids.map { $0.contains(push.apnsId) } ?? true) }
            }
            if let fate, fate.outcome.kind == expected, reason == nil || fate.outcome.reason == reason { break }
            if let fate, fate.outcome.isFinal, Date() > deadline { break }
            usleep(10_000)
        } while Date() < deadline
        let happened =
            fate.map { "\($0.outcome.kind)\($0.outcome.reason.map { " (\($0))" } ?? "")" }
            ?? "no push reached APNs for this phone"
        let passed = fate.map { $0.outcome.kind == expected && (reason == nil || $0.outcome.reason == reason) } ?? false
        result.expectations.append(
            .init(
                range: range, passed: passed, expected: "\(expected)\(reason.map { " (\($0))" } ?? "") on \(phone)",
                happened: happened, chain: fate?.texts ?? []))
    }

    private func expectAPNs(_ step: Mapping, range: SourceRange) {
        if let refused = text(step, "refused") {
            // A connection refused in the TLS handshake, with `refused` in the mock's reason.
            let reasons = recorder.refusals.map(\.why)
            result.expectations.append(
                .init(
                    range: range, passed: reasons.contains { $0.contains(refused) },
                    expected: "a connection refused: \(refused)",
                    happened: reasons.isEmpty
                        ? "no connection was refused"
                        : "\(reasons.count) refused: " + Array(Set(reasons)).sorted().joined(separator: "; "),
                    chain: []))
            if text(step, "count") == nil, text(step, "status") == nil { return }
        }
        let status = text(step, "status").flatMap(Int.init)
        let reason = text(step, "reason")
        // `phone: alice` keeps requests to any token alice's apps ever had; `header: "name: value"`
        // keeps requests that carried exactly that header.
        var tokens: Set<String>?
        if let phone = text(step, "phone") {
            guard let id = phoneIds[phone] else { return missingPhone(phone, range) }
            tokens = Set(
                world.withWorld { w in
                    w.pushes.filter { $0.phone == id }.map(\.token)
                        + w.phones[id].apps.flatMap { [$0.voipToken.description, $0.alertToken.description] }
                })
        }
        let header = text(step, "header").map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return (parts[0].lowercased(), parts.count > 1 ? parts[1] : "")
        }
        let matching = recorder.records.filter { record in
            (status == nil || record.status == status) && (reason == nil || record.rejection?.reason.wire == reason)
                && (tokens == nil || tokens!.contains(record.request.deviceToken ?? ""))
                && (header == nil || Self.value(of: header!.0, in: record.request) == header!.1)
        }
        let count = text(step, "count").flatMap(Int.init)
        let passed = count.map { matching.count == $0 } ?? !matching.isEmpty
        var description = [
            status.map { "status \($0)" }, reason, text(step, "phone").map { "to \($0)" },
            text(step, "header").map { "with <\($0)>" },
        ].compactMap { $0 }.joined(separator: " ")
        if description.isEmpty { description = "requests" }
        result.expectations.append(
            .init(
                range: range, passed: passed, expected: "\(count.map(String.init) ?? "some") \(description)",
                happened: "\(matching.count) of \(recorder.records.count) requests matched: "
                    + recorder.records.map { "\($0.status)\($0.rejection.map { " \($0.reason.wire)" } ?? "")" }.joined(
                        separator: ", "),
                chain: []))
    }

    private func expectProvider(_ step: Mapping, range: SourceRange) {
        var checks: [(String, Bool, String)] = []
        let actions = provider.actions
        if let phone = text(step, "never-pushes") {
            // A token refused for good (410, BadDeviceToken) must never be pushed again ([RESP]).
            var refused = Set<String>()
            var again = 0
            for record in recorder.records {
                guard let token = record.request.deviceToken else { continue }
                if refused.contains(token) { again += 1 }
                if record.status == 410 || record.rejection?.reason == .badDeviceToken { refused.insert(token) }
            }
            checks.append(
                (
                    "no push to \(phone)'s token after APNs refused it for good", again == 0,
                    "\(again) pushes after a refusal"
                ))
        }
        if text(step, "refreshed-jwt") == "true" {
            checks.append(
                ("a new JWT after ExpiredProviderToken", actions.contains(.refreshedJWT), "actions: \(actions.count)"))
        }
        if let retried = text(step, "retried").flatMap(Int.init) {
            let waits = retryWaits(actions)
            checks.append(
                (
                    "at least \(retried) retries with back-off (each after at least \(Int(Self.minimumBackOff * 1000)) ms)",
                    waits.count >= retried && waits.allSatisfy { $0 >= Self.minimumBackOff },
                    "\(waits.count) retries, after "
                        + (waits.isEmpty ? "none" : waits.map { String(format: "%.3f s", $0) }.joined(separator: ", "))
                ))
        }
        if text(step, "reconnected") == "true" {
            let reconnected = actions.contains {
                if case .resentOnNewConnection = $0 { return true } else { return false }
            }
            let connections = Set(recorder.records.map(\.connection)).count
            checks.append(
                ("sent again on a new connection", reconnected || connections > 1, "\(connections) connections"))
        }
        for (expected, passed, happened) in checks {
            result.expectations.append(
                .init(range: range, passed: passed, expected: expected, happened: happened, chain: []))
        }
    }

    /// The shortest wait that counts as backing off: Apple asks for exponential back-off and gives no
    /// numbers; a provider retrying at once is back within tens of milliseconds, even one that starts
    /// a process per push.
    static let minimumBackOff = 0.1

    /// The waits before retries, in order. The built-in provider says how long it meant to wait; for
    /// any other they are read off what the mock saw: a request to a token after a 429 or 5xx answer
    /// to it is a retry, and its wait is the real time since that answer.
    private func retryWaits(_ actions: [ProviderAction]) -> [Double] {
        let intended = actions.compactMap { action -> Double? in
            if case .retried(_, let after) = action { return after } else { return nil }
        }
        if !intended.isEmpty { return intended }
        var waits: [Double] = []
        var answered: [String: Double] = [:]
        for record in recorder.records {
            guard let token = record.request.deviceToken else { continue }
            if let since = answered.removeValue(forKey: token) { waits.append(record.at.wall - since) }
            if record.status == 429 || record.status >= 500 { answered[token] = record.at.wall }
        }
        return waits
    }

    static func value(of header: String, in request: PushRequest) -> String? {
        switch header {
        case "apns-topic": return request.topic
        case "apns-push-type": return request.pushType
        case "apns-priority": return request.priority
        case "apns-expiration": return request.expiration
        case "apns-collapse-id": return request.collapseId
        case "apns-id": return request.apnsId
        case ":method": return request.method
        default: return nil
        }
    }

    private func text(_ mapping: Mapping, _ key: String) -> String? {
        if case .scalar(let scalar)? = mapping.value(key) { return scalar.text }
        return nil
    }

    private func list(_ mapping: Mapping, _ key: String) -> [String] {
        switch mapping.value(key) {
        case .sequence(let sequence)?:
            return sequence.items.compactMap { if case .scalar(let s) = $0 { return s.text } else { return nil } }
        case .scalar(let scalar)?: return [scalar.text]
        default: return []
        }
    }
}

/// Keeps every request the mock answered, for `expect apns` and `expect provider`.
final class PushRecorder: MockObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [PushRecord] = []
    private var refused: [(why: String, at: Moment)] = []

    func observe(_ event: MockEvent) {
        lock.lock()
        defer { lock.unlock() }
        switch event {
        case .push(let record): kept.append(record)
        case .connectionRefused(_, let why, let at): refused.append((why, at))
        default: break
        }
    }

    /// Connections refused in the TLS handshake: why, and when.
    var refusals: [(why: String, at: Moment)] {
        lock.lock()
        defer { lock.unlock() }
        return refused
    }

    var records: [PushRecord] {
        lock.lock()
        defer { lock.unlock() }
        return kept
    }
}
