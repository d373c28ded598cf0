import APNs
import Foundation
import HTTP2Server
import World

/// What a whole mock is made of, for `MockAssembly`.
public struct MockOptions: Sendable {
    /// The test credentials' folder (certs-test): keys, the server's certificates, the CA.
    public var certs: String
    public var validation = ValidationSettings()
    public var authentication: AuthenticationMode = .either
    /// Seeds the world's device tokens and the server's apns-ids; nil: apns-ids from the system.
    public var seed: UInt64?
    public var worldSettings = WorldSettings()
    /// Any well-formed device token is valid (and reaches no phone).
    public var acceptsUnknownTokens = false
    /// The fake APNs's socket, limits and event loops; its TLS is set here from `plaintext`.
    public var server = ServerConfiguration()
    /// Cleartext HTTP/2 (h2c) instead of TLS.
    public var plaintext = false
    /// The control API's port (0: a free one); nil: no control API.
    public var controlPort: UInt16?
    /// When set, the control API answers only `authorization: Bearer <token>` (401 otherwise).
    public var controlToken: String?
    /// Recorded answers to serve back (`ringside replay`).
    public var replay: ReplayPlan?
    /// A world built beforehand (a benchmark's million phones); nil: a new one from `worldSettings`.
    public var world: SharedWorld?
    /// Answers for device tokens without a world behind the mock (tests of the protocol alone); accepted
    /// pushes then go nowhere.
    public var directory: (any DeviceDirectory)?
    /// A clock that moves only when told (tests without sleeps); the control API moves it too. nil:
    /// the wall clock plus an offset.
    public var manualClock: ManualClock?
    /// Faults armed beforehand (tests).
    public var faults: FaultPlan?
    /// How many of the latest pushes the world remembers with their outcome (`GET /outcomes`), and
    /// how many events `GET /transcript` shows: a long `serve` stays bounded (docs/control-api.md,
    /// "How long"). `--transcript FILE` keeps every event.
    public var kept = MockOptions.keptByDefault
    /// Whether `MockAssembly.transcript` keeps the latest events. A scenario's mock has no control
    /// API to show them: keeping each request's event there was a tenth of its thread's work a
    /// push in `bench/load.sh` (perf).
    public var keepsTranscript = true

    /// `serve --keep`'s default: a million phones and their pushes within 400 MB (docs/scaling.md).
    public static let keptByDefault = 20_000

    public init(certs: String) { self.certs = certs }
}

/// One assembly of a mock — the server with its trusted and untrusted TLS contexts, the world and
/// its ticker, the control API, the observers — used by `serve`, the scenario runner and the tests,
/// so that what one can do, all can (the runner once lost the certificate switch this way).
/// Unchecked Sendable: immutable after init (only `let`s, each to an object that guards its own state).
public final class MockAssembly: @unchecked Sendable {
    public let clock = SystemClock()
    public let world: SharedWorld
    /// What the mock reads the time from: `clock`, or the options' manual clock.
    public let worldClock: any WorldClock
    public let mock: MockAPNs
    /// What the control API's `GET /transcript` shows: the latest `MockOptions.kept` events (none
    /// unless `MockOptions.keepsTranscript`).
    public let transcript: TranscriptBuffer
    public let server: HTTP2Server
    /// The server's certificate and the one from a CA no provider trusts (`untrusted-server-certificate`);
    /// nil in cleartext.
    public let certificates: (trusted: TLSContext, untrusted: TLSContext)?
    public let control: ControlAPI?
    public let controlServer: HTTP2Server?
    /// Whether a world stands behind the mock (and so has a ticker to start and stop).
    private let hasWorld: Bool

    public init(_ options: MockOptions) throws {
        hasWorld = options.directory == nil
        world = options.world ?? SharedWorld(settings: options.worldSettings, seed: options.seed ?? 1)
        if options.world == nil { world.acceptsUnknownTokens = options.acceptsUnknownTokens }
        world.withWorld { $0.keptPushes = options.kept }
        transcript = TranscriptBuffer(capacity: options.kept)
        worldClock = options.manualClock ?? clock
        var configuration = MockConfiguration(
            validation: options.validation, keys: try KeyStore.load(directory: options.certs))
        configuration.authentication = options.authentication
        configuration.seed = options.seed
        // The server's stream limit is the one APNs raises a connection to once it is authenticated.
        configuration.authenticatedMaxConcurrentStreams = options.server.limits.maxConcurrentStreams
        configuration.clock = worldClock
        if let directory = options.directory {
            configuration.directory = directory
        } else {
            configuration.world = world
        }
        if let faults = options.faults { configuration.faults = faults }
        configuration.replay = options.replay
        mock = MockAPNs(configuration: configuration)
        if options.keepsTranscript { mock.addObserver(transcript) }

        var serverConfiguration = options.server
        serverConfiguration.tls = nil
        if !options.plaintext {
            let clients = options.authentication.clientCertificates
            let trusted = try TLSContext(
                certificateFile: options.certs + "/server.pem", keyFile: options.certs + "/server.key",
                trustedCAFile: options.certs + "/ca.pem", clientCertificates: clients)
            let untrusted = try TLSContext(
                certificateFile: options.certs + "/server-untrusted.pem",
                keyFile: options.certs + "/server-untrusted.key", trustedCAFile: options.certs + "/ca.pem",
                clientCertificates: clients)
            serverConfiguration.tls = trusted
            certificates = (trusted, untrusted)
            let server = HTTP2Server(configuration: serverConfiguration, service: mock)
            mock.switchServerCertificate = { [weak server] useUntrusted in
                server?.replaceTLSContext(useUntrusted ? untrusted : trusted)
            }
            self.server = server
        } else {
            certificates = nil
            server = HTTP2Server(configuration: serverConfiguration, service: mock)
        }

        if let controlPort = options.controlPort, options.directory == nil {
            let api = ControlAPI(mock: mock, world: world, clock: options.manualClock ?? clock, transcript: transcript)
            api.requiredToken = options.controlToken
            var controlConfiguration = ServerConfiguration()
            controlConfiguration.host = options.server.host
            controlConfiguration.port = controlPort
            controlConfiguration.acceptsHTTP1 = true
            // One thread serves every control request (ControlAPI is written for one), another only
            // accepts: a large listing never keeps a new connection waiting in the backlog.
            controlConfiguration.workers = 2
            controlConfiguration.acceptorOnly = true
            // World files and phone lists are larger than a push: keep whole bodies up to 1 MiB.
            controlConfiguration.limits.maximumKeptBody = ControlAPI.maximumBody
            controlConfiguration.limits.maximumHeldPerConnection = ControlAPI.maximumHeldPerConnection
            // A test harness needs a few connections, not thousands: idle ones are closed and the
            // count is capped, so that idle clients cannot use up the process's descriptors.
            controlConfiguration.maximumConnections = ControlAPI.maximumConnections
            controlConfiguration.idleTimeout = ControlAPI.idleTimeout
            // With a control token, a connection that has not made an authenticated request within a few
            // seconds is closed: 256 idle strangers cannot lock the token holder out (issue 27).
            if options.controlToken != nil { controlConfiguration.untrustedTimeout = ControlAPI.untrustedTimeout }
            control = api
            controlServer = HTTP2Server(configuration: controlConfiguration, service: api)
        } else {
            control = nil
            controlServer = nil
        }
    }

    /// Binds the sockets and starts the event loops and the world's ticker.
    public func start() throws {
        try server.start()
        do {
            try controlServer?.start()
        } catch {
            server.stop()
            throw error
        }
        if hasWorld {
            do {
                try world.startTicking(clock: worldClock)
            } catch {
                controlServer?.stop()
                server.stop()
                throw error
            }
        }
    }

    /// Stops everything; open connections get GOAWAY with `goAwayDebugData`.
    public func stop(goAwayDebugData: [UInt8] = []) {
        server.stop(goAwayDebugData: goAwayDebugData)
        controlServer?.stop()
        if hasWorld { world.stopTicking() }
        mock.turnEnded()  // what observers gathered is written before the mock is gone
    }

    /// The fake APNs's URL.
    public var url: String { "\(certificates == nil ? "http" : "https")://\(server.configuration.host):\(server.port)" }
}
