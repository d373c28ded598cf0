import APNs
import Foundation
import HTTP2Server
import Synchronization
import World

/// How clients prove who they are ([SEND]: token-based or certificate-based connections).
public enum AuthenticationMode: String, Sendable, CaseIterable {
    /// JWTs only; no client certificate is asked for.
    case token
    /// Client certificates only; a client without one is refused in the handshake.
    case certificate
    /// A connection with a client certificate uses it; one without uses JWTs (as APNs does).
    case either

    /// What TLS asks of clients in this mode.
    public var clientCertificates: ClientCertificateMode {
        switch self {
        case .token: return .none
        case .certificate: return .required
        case .either: return .optional
        }
    }
}

/// Everything the fake APNs needs to judge requests.
public struct MockConfiguration: Sendable {
    public var validation: ValidationSettings
    public var keys: KeyStore
    public var authentication: AuthenticationMode = .either
    public var directory: any DeviceDirectory = EveryTokenRegistered()
    public var clock: any WorldClock = SystemClock()
    public var faults = FaultPlan()
    /// MAX_CONCURRENT_STREAMS once a connection is authenticated (docs/apns-facts.md §6.1: 1000 observed).
    public var authenticatedMaxConcurrentStreams: UInt32 = 1000
    /// Seed for server-generated `apns-id`s; nil seeds from the system (replayable runs: docs/architecture.md, "Time").
    public var seed: UInt64?
    /// The world behind the mock: its phones answer for device tokens and receive accepted pushes. Without
    /// one, `directory` answers and accepted pushes go nowhere.
    public var world: SharedWorld?
    /// When set, recorded answers are served back in order (`ringside replay`).
    public var replay: ReplayPlan?

    public init(validation: ValidationSettings, keys: KeyStore) {
        self.validation = validation
        self.keys = keys
    }
}

/// The fake APNs service: HTTP/2 requests → validation → authentication → directory → responses.
///
/// It plugs into `HTTP2Server` as its service; each connection gets an `APNsConnection`.
/// Unchecked Sendable: `observers` and `certificateSwitch` are behind `observersLock`; the rest are `let`s
/// (`observerCount` an `Atomic`).
public final class MockAPNs: HTTP2Service, @unchecked Sendable {
    public let configuration: MockConfiguration
    let validator: Validator
    private let observersLock = NSLock()
    private var observers: [any MockObserver] = []

    public init(configuration: MockConfiguration) {
        self.configuration = configuration
        validator = Validator(
            settings: configuration.validation, keys: configuration.keys,
            directory: configuration.world ?? configuration.directory)
        if let world = configuration.world {
            world.onFinished = { [weak self] finished in self?.emitOutcomes(finished) }
        }
    }

    /// Switches the server certificate for new connections (true: one from a CA the provider does not
    /// trust); set by whoever runs the server (`MockAssembly`).
    public var switchServerCertificate: (@Sendable (Bool) -> Void)? {
        get {
            observersLock.lock()
            defer { observersLock.unlock() }
            return certificateSwitch
        }
        set {
            observersLock.lock()
            certificateSwitch = newValue
            observersLock.unlock()
        }
    }
    private var certificateSwitch: (@Sendable (Bool) -> Void)?

    /// Arms a fault: the one way in for the control API and for scenarios. Returns why it cannot be
    /// armed, or nil.
    public func arm(_ spec: FaultSpec) -> String? {
        if configuration.faults.count >= FaultPlan.maximumArmed {
            return "\(FaultPlan.maximumArmed) faults are armed, the most at once; disarm them first (DELETE /faults)"
        }
        if configuration.faults.arm(spec) { return nil }
        guard case .untrustedServerCertificate(let on) = spec.kind else { return nil }
        guard let switchServerCertificate else { return "this mock serves no TLS, so it cannot change its certificate" }
        switchServerCertificate(on)
        return nil
    }

    /// Disarms every fault and serves the trusted certificate again.
    public func disarmFaults() {
        configuration.faults.disarmAll()
        switchServerCertificate?(false)
    }

    /// Readers go first, keepers last (`MockObserver.keepsEvents`): `serve` adds its log after the
    /// control API's transcript, which then was lent each push and copied it (1,700 instructions
    /// a request, callgrind).
    public func addObserver(_ observer: any MockObserver) {
        observersLock.lock()
        if observer.keepsEvents { observers.append(observer) } else { observers.insert(observer, at: 0) }
        observerCount.store(observers.count, ordering: .releasing)
        observersLock.unlock()
    }

    /// How many observers there are, readable without the lock (every request asks).
    private let observerCount = Atomic<Int>(0)

    /// Whether anyone watches: building a record for nobody is wasted work on the hot path.
    var isObserved: Bool { observerCount.load(ordering: .acquiring) > 0 }

    /// The outcomes of finished pushes, each story built once and handed to the last observer:
    /// a `PushFate` built into an array, copied into its event and copied again for the
    /// transcript was two copies of its strings and story a push, and their destruction (perf:
    /// the ticker's thread went from 14–15% of the mock's samples to 12–14%).
    func emitOutcomes(_ finished: [FinishedPush]) {
        var current: [any MockObserver] = []
        finished.forEachFate { emit(.outcome($0), through: &current) }
    }

    func emit(_ event: MockEvent) {
        guard isObserved else { return }
        observersLock.lock()
        let current = observers
        observersLock.unlock()
        for observer in current { observer.observe(event) }
    }

    /// The observers, through a connection's copy: refreshed under the lock only when one was added
    /// since (observers are never removed), so that a push takes no lock the other workers contend for.
    func emit(_ event: consuming MockEvent, through copy: inout [any MockObserver]) {
        let count = observerCount.load(ordering: .acquiring)
        if count == 0 { return }
        if copy.count != count {
            observersLock.lock()
            copy = observers
            observersLock.unlock()
        }
        // The last observer (the transcript, in `serve`) takes the event itself: one copy less
        // of a push's record, and one destruction. The others are lent it (`read`): the log
        // copied a push's whole record to read a few fields (about 700 instructions a push).
        for observer in copy.dropLast() { observer.read(event) }
        copy.last?.observe(event)
    }

    public func turnEnded() {
        guard isObserved else { return }
        observersLock.lock()
        let current = observers
        observersLock.unlock()
        for observer in current { observer.flush() }
    }

    public func open(_ connection: ConnectionInfo) -> any HTTP2ConnectionHandler {
        let handler = APNsConnection(info: connection, mock: self)
        let now = configuration.clock.now()
        emit(
            .connectionOpened(
                connection: connection.id, peer: connection.peer, alpn: connection.alpn,
                authentication: handler.authenticationDescription, at: now))
        emit(
            .settings(
                connection: connection.id, maxConcurrentStreams: handler.initialMaxConcurrentStreams,
                why: (handler.initialMaxConcurrentStreams == 1
                    ? "one stream until a request carries a valid JWT ([SEND])"
                    : "a certificate connection is authenticated by its handshake")
                    + (handler.holdsSettings > 0
                        ? "; sent \(handler.holdsSettings) s after the handshake (hold-settings)" : ""),
                at: now))
        return handler
    }

    public func refused(peer: String, why: String) {
        emit(.connectionRefused(peer: peer, why: why, at: configuration.clock.now()))
    }

    /// The GOAWAY debug data APNs sends with a reason ([RESP]: the same JSON as a response body).
    static func goAwayData(_ reason: Reason) -> [UInt8] { Array(#"{"reason":"\#(reason.wire)"}"#.utf8) }
}
