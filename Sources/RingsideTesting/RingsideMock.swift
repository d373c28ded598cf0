@_exported import APNs
import Foundation
import MockAPNs
import Scenario
import Synchronization
@_exported import World

/// A fake APNs with a world of virtual phones, started in-process on a free port, for a push
/// provider's own Swift tests (Swift Testing or XCTest): what the control API offers, as typed calls.
/// It is the same `MockAssembly` that `ringside serve` and `ringside run` use.
///
/// ```swift
/// let mock = try await RingsideMock.start()
/// let alice = try await mock.addPhone("alice")
/// // … hand alice.voipToken to the provider, point it at mock.contract, place a call …
/// let outcome = try await mock.outcome(of: alice)
/// #expect(outcome.kind == .rang)
/// ```
public final class RingsideMock: Sendable {
    /// How the mock judges and what it serves.
    public struct Options: Sendable {
        public var profile: ValidationSettings.Profile = .apple
        public var environment: APNsEnvironment = .sandbox
        public var authentication: AuthenticationMode = .either
        public var world = WorldSettings()
        /// Seeds device tokens and apns-ids, so runs repeat.
        public var seed: UInt64 = 1
        /// certs-test/ (nil: `$RINGSIDE_CERTS`, else the Ringside checkout this library was built from).
        public var certs: String?

        public init() {}
    }

    /// Where the mock is and how to authenticate: what a provider under test is told.
    public struct Contract: Sendable {
        /// `https://127.0.0.1:PORT`.
        public let url: String
        public let host: String
        public let port: UInt16
        /// The CA that signs the mock's server certificate: trust it as you trust Apple's.
        public let caFile: String
        /// The test app's bundle ID (VoIP pushes go to `topic + ".voip"`).
        public let topic: String
        /// The test app's VoIP topic, `topic + ".voip"` (`APNS_VOIP_TOPIC`): a VoIP push's `apns-topic`.
        public let voipTopic: String
        public let keyFile: String
        public let keyId: String
        public let teamId: String
        /// A client certificate for certificate authentication, and its key (PEM).
        public let certificateFile: String
        public let certificateKeyFile: String
        /// The same variables `ringside serve` prints (APNS_URL, APNS_CA_FILE, …), for a child process.
        public let environment: [String: String]
    }

    /// A virtual phone and the tokens of its apps.
    public struct Phone: Sendable, Equatable {
        public let id: Int
        public let name: String
        /// The first app's PushKit (VoIP) token.
        public let voipToken: String
        /// The first app's regular (alert) token.
        public let alertToken: String
        public let bundleIds: [String]
    }

    /// How one push ended on a phone, with the chain of events in sentences.
    public struct Outcome: Sendable {
        public let outcome: RingOutcome
        public let apnsId: String
        public let callUUID: String?
        public let phone: String?
        public let story: [String]
        /// `rang`, `rang-late`, `not-delivered` …
        public var kind: RingOutcome.Kind? { outcome.finalKind }
        /// Why it did not ring (`offline-not-stored`, `unregistered` …), when it did not.
        public var reason: String? { outcome.reason }
    }

    /// One request the mock answered (or left unanswered: status 0).
    public struct Exchange: Sendable {
        public let connection: UInt64
        public let deviceToken: String?
        public let status: Int
        public let reason: Reason?
        /// The request as APNs read it (its body cut to a kilobyte).
        public let request: PushRequest
        public let apnsId: String
        /// World time.
        public let at: Double

        /// A request header by name, case-insensitively.
        public func header(_ name: String) -> String? { request.header(named: name) }
    }

    public let contract: Contract
    private let assembly: MockAssembly
    private let recorder = Recorder()
    /// Per phone, the number of the latest push `outcome(of:)` returned: each call waits for a newer one.
    private let returned = Mutex<[Int: Int]>([:])

    /// Starts a mock on 127.0.0.1 and a free port; `stop()` it at the end.
    public static func start(_ options: Options = Options()) async throws -> RingsideMock {
        try RingsideMock(options)
    }

    private init(_ options: Options) throws {
        // Absolute, so that the contract's paths hold for a child process started elsewhere.
        let certs = URL(fileURLWithPath: try options.certs ?? Self.locateCerts()).standardizedFileURL.path
        var mockOptions = MockOptions(certs: certs)
        mockOptions.validation.profile = options.profile
        mockOptions.validation.environment = options.environment
        mockOptions.authentication = options.authentication
        mockOptions.seed = options.seed
        mockOptions.worldSettings = options.world
        mockOptions.server.port = 0
        mockOptions.server.workers = 1
        assembly = try MockAssembly(mockOptions)
        assembly.mock.addObserver(recorder)
        try assembly.start()
        let server = assembly.server.configuration
        let variables = ProviderContract.environment(
            url: assembly.url, host: server.host, port: assembly.server.port, certs: certs)
        contract = Contract(
            url: assembly.url, host: server.host, port: assembly.server.port, caFile: variables["APNS_CA_FILE"]!,
            topic: ProviderContract.topic, voipTopic: ProviderContract.voipTopic,
            keyFile: variables["APNS_KEY_FILE"]!, keyId: ProviderContract.keyId, teamId: ProviderContract.teamId,
            certificateFile: variables["APNS_CERT_FILE"]!, certificateKeyFile: variables["APNS_CERT_KEY_FILE"]!,
            environment: variables)
    }

    static func locateCerts() throws -> String {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("certs-test").path
        for candidate in [ProcessInfo.processInfo.environment["RINGSIDE_CERTS"], checkout].compactMap({ $0 })
        where FileManager.default.fileExists(atPath: candidate + "/keys.json") {
            return candidate
        }
        throw RingsideError("cannot find certs-test/; set Options.certs or RINGSIDE_CERTS")
    }

    /// GOAWAY to every connection, then the server and the world stop. Also done when the mock is
    /// released, so that a test that throws before `stop()` leaks no port or thread.
    public func stop() async { assembly.stop() }

    deinit { assembly.stop() }

    private var now: Double { assembly.worldClock.now().world }

    // MARK: Phones

    /// A phone with apps (default: one, the test app, reporting calls at once on iOS 18).
    public func addPhone(
        _ name: String, online: Bool = true, apps: [AppSpec] = [AppSpec(bundleId: ProviderContract.topic)]
    ) async throws -> Phone {
        guard !apps.isEmpty, apps.count <= VirtualPhone.maximumApps else {
            throw RingsideError("a phone has 1 to \(VirtualPhone.maximumApps) apps, got \(apps.count)")
        }
        let at = now
        return assembly.world.withWorld { world in
            let id = world.addPhone(name: name, online: online, apps: apps, at: at)
            let first = apps[0].bundleId
            return Phone(
                id: id, name: name, voipToken: world.token(phone: id, bundleId: first, kind: .voip) ?? "",
                alertToken: world.token(phone: id, bundleId: first, kind: .alert) ?? "",
                bundleIds: apps.map(\.bundleId))
        }
    }

    /// A phone's current token of an app (it changes with `reinstall` and `rotate-token`).
    public func token(of phone: Phone, app: String? = nil, kind: TokenKind = .voip) async -> String? {
        assembly.world.withWorld { $0.token(phone: phone.id, bundleId: app ?? phone.bundleIds[0], kind: kind) }
    }

    public func setOnline(_ phone: Phone, _ online: Bool) async {
        let at = now
        assembly.world.withWorld { $0.change(phone: phone.id, .online(online), at: at) }
    }

    /// Something that happens to an app: `.uninstall` (its tokens die: 410; the app is gone, and a
    /// later event on it throws), `.reinstall`, `.rotateToken`, `.foreground` …
    public func apply(_ event: World.AppEvent, to phone: Phone, app: String? = nil) async throws {
        let at = now
        let bundle = app ?? phone.bundleIds[0]
        let installed = assembly.world.withWorld { world in
            guard world.token(phone: phone.id, bundleId: bundle, kind: .voip) != nil else { return false }
            world.apply(event, phone: phone.id, bundleId: bundle, at: at)
            return true
        }
        guard installed else { throw RingsideError("\(bundle) is not installed on \(phone.name) (uninstalled?)") }
    }

    /// Focus, blocked callers, a call in progress: what CallKit and PushKit consult.
    public func change(_ phone: Phone, _ change: World.PhoneChange) async {
        let at = now
        assembly.world.withWorld { $0.change(phone: phone.id, change, at: at) }
    }

    // MARK: Faults and the clock

    /// Arms a fault (the control API's `POST /faults`); `phone` narrows it to that phone's VoIP token.
    public func arm(_ kind: FaultSpec.Kind, count: Int = 1, phone: Phone? = nil) async throws {
        guard FaultSpec.counts.contains(count) else {
            throw RingsideError("a fault's count is \(FaultSpec.counts.lowerBound) to \(FaultSpec.counts.upperBound)")
        }
        var spec = FaultSpec(kind, count: count)
        if let phone {
            // A fault meant for one phone must not fall back to every token.
            guard let token = await token(of: phone) else {
                throw RingsideError("\(phone.name) has no VoIP token of \(phone.bundleIds[0]) (uninstalled?)")
            }
            spec.match.deviceToken = token
        }
        if let problem = assembly.mock.arm(spec) { throw RingsideError(problem) }
    }

    public func disarmFaults() async { assembly.mock.disarmFaults() }

    /// Moves the world clock (a JWT ages, stored pushes expire, throttles lift) and plays what falls due.
    public func advance(by seconds: Double) async throws {
        guard assembly.clock.advance(by: seconds) else {
            throw RingsideError("the world clock moves forward, at most a century ahead; got \(seconds) s")
        }
        let at = now
        assembly.world.withWorld { $0.run(until: at) }
    }

    // MARK: What happened

    /// Every request the mock answered so far, in order.
    public var exchanges: [Exchange] { get async { recorder.exchanges } }

    /// The transcript as JSON lines (what `--transcript` writes and `GET /transcript` serves).
    public var transcript: [String] { get async { assembly.transcript.all } }

    /// Waits until a VoIP push to `phone` has a final outcome, or throws after `timeout` seconds of
    /// real time. With `callUUID`, the latest push of that call; without, the latest push newer than
    /// the one this returned last for the phone (so that each call waits for the next push).
    public func outcome(of phone: Phone, callUUID: String? = nil, timeout: Double = 5) async throws -> Outcome {
        guard timeout.isFinite, (0...3600).contains(timeout) else {
            throw RingsideError("a timeout is 0 to 3600 seconds, got \(timeout)")
        }
        let deadline = Date().addingTimeInterval(timeout)
        let after = callUUID == nil ? returned.withLock { $0[phone.id] ?? -1 } : -1
        while true {
            let fates = assembly.world.withWorld { $0.pushes }.filter {
                $0.phone == phone.id && $0.kind == .voip && $0.number > after
                    && (callUUID == nil || $0.callUUID == callUUID)
            }
            if let latest = fates.last, latest.outcome.isFinal {
                returned.withLock { $0[phone.id] = max($0[phone.id] ?? -1, latest.number) }
                return Outcome(
                    outcome: latest.outcome, apnsId: latest.apnsId, callUUID: latest.callUUID,
                    phone: latest.phoneName, story: latest.texts)
            }
            if Date() >= deadline {
                let tokens = Set([phone.voipToken] + [await token(of: phone)].compactMap { $0 })
                let answered = recorder.exchanges.filter { tokens.contains($0.deviceToken ?? "") }
                    .map { "\($0.status)\($0.reason.map { " \($0.wire)" } ?? "")" }
                throw RingsideError(
                    fates.isEmpty
                        ? "no push reached \(phone.name) within \(timeout) s; APNs answered its token: \(answered.isEmpty ? "nothing" : answered.joined(separator: ", "))"
                        : "the push to \(phone.name) is still pending after \(timeout) s: \(fates.last!.texts.joined(separator: "; "))"
                )
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }
}

/// A mistake in a test's use of the mock, or a wait that timed out.
public struct RingsideError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Keeps what the mock answered. Observers are called from the event loops.
final class Recorder: MockObserver {
    private let kept = Mutex<[RingsideMock.Exchange]>([])

    func observe(_ event: MockEvent) {
        guard case .push(let record) = event else { return }
        var request = record.request
        request.compact(keeping: 1024)
        let exchange = RingsideMock.Exchange(
            connection: record.connection, deviceToken: request.deviceToken, status: record.status,
            reason: record.rejection?.reason, request: request, apnsId: record.apnsId, at: record.at.world)
        kept.withLock { $0.append(exchange) }
    }

    var exchanges: [RingsideMock.Exchange] { kept.withLock { $0 } }
}
