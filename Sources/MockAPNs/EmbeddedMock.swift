import APNs
import Foundation
import HTTP2Server
import World

/// The fake APNs as `MockAssembly` builds it for `serve` (the rules, the world, the control API,
/// faults, the certificate switch) with no socket, no thread and no sleep. Each connection is the
/// server's own `Connection`, the engine a worker drives, fed from memory (`EmbeddedConnection`);
/// its timers and the world's events come due on a `ManualClock`, so an hour passes in
/// `passes(3600)`. One thread drives it: the scenario runner's in-memory runs and the tests'
/// `MemoryMock`. What a worker adds (idle and handshake timeouts, reading only while output has
/// room, the event loop) is not here; docs/architecture.md, "Tests", says what stays on loopback.
public final class EmbeddedMock {
    public let clock: ManualClock
    public let assembly: MockAssembly
    public var mock: MockAPNs { assembly.mock }
    public var world: SharedWorld { assembly.world }
    /// Every connection's server side, in the order they were opened (the mock numbers them so).
    private var ends: [EmbeddedConnection] = []
    /// The client sides `pump` carries bytes for (a wire carries its own, when its client reads).
    private var peers: [any EmbeddedPeer] = []
    /// Actions a connection scheduled (`ConnectionControl.after`), due on the manual clock; a closed
    /// connection's are dropped, as a worker drops them.
    private var timers: [(due: Double, order: Int, connection: Int, action: () -> Void)] = []
    private var scheduled = 0
    private let hasWorld: Bool
    /// The server certificate new connections get (the certificate fault switches it).
    public private(set) var tls: TLSContext?
    /// Connections opened to the push service (not the control API), as a server counts those it
    /// accepted.
    public private(set) var connectionsAccepted: UInt64 = 0

    /// `options.manualClock` is set to `clock`; nothing is bound, whatever the options' ports say.
    public init(_ options: MockOptions, clock: ManualClock) throws {
        var options = options
        options.manualClock = clock
        self.clock = clock
        hasWorld = options.directory == nil
        assembly = try MockAssembly(options)
        tls = assembly.certificates?.trusted
        if let certificates = assembly.certificates {
            nonisolated(unsafe) let embedded = self
            assembly.mock.switchServerCertificate = { untrusted in
                embedded.tls = untrusted ? certificates.untrusted : certificates.trusted
            }
        }
    }

    deinit { close() }

    /// Closes every connection still open, as a server stopping does.
    public func close() {
        for end in ends where end.isOpen { end.close(why: "the mock stopped") }
        mock.turnEnded()
    }

    /// A new connection's server side, its timers on the manual clock: to the push service over the
    /// mock's TLS (`tls`), or to `service` (the control API) as given.
    public func open(
        tls: TLSContext?, service: (any HTTP2Service)? = nil, limits: HTTP2Limits = HTTP2Limits()
    ) -> EmbeddedConnection {
        let index = ends.count
        if service == nil { connectionsAccepted += 1 }
        let end = EmbeddedConnection(
            id: UInt64(index + 1), tls: tls, service: service ?? mock, limits: limits, now: clock.now().wall
        ) { [unowned self] seconds, action in
            scheduled += 1
            timers.append((clock.now().wall + seconds, scheduled, index, action))
        }
        ends.append(end)
        return end
    }

    /// A client side for `pump` to carry bytes for, until it is removed or closes.
    public func add(_ peer: any EmbeddedPeer) { peers.append(peer) }

    public func remove(_ peer: any EmbeddedPeer) { peers.removeAll { $0 === peer } }

    /// What `ClientConfiguration.dial` calls: a connection to the push service, over TLS unless the
    /// mock is cleartext. Reads wait on the manual clock.
    public func dial(timeout: Double) -> EmbeddedWire {
        EmbeddedWire(mock: self, server: open(tls: tls), timeout: timeout)
    }

    /// Carries bytes both ways, runs what is due and lets the world catch up, until nothing moves.
    public func pump() {
        for _ in 0..<1000 {
            var moved = false
            for peer in peers where peer.isOpen { moved = peer.sendRequests() || moved }
            moved = runDue() || moved
            if hasWorld { world.withWorld { $0.run(until: clock.now().world) } }
            mock.turnEnded()
            for peer in peers where peer.isOpen { moved = peer.deliverAnswers() || moved }
            if !moved { return }
        }
        preconditionFailure("the clients and the mock kept talking for 1000 rounds")
    }

    /// Time goes by (world and wall), in steps no longer than `step` so that each timer and each of
    /// the world's events happens in its turn.
    public func passes(_ seconds: Double, step: Double = 0.05) {
        var left = seconds
        while left > 0 {
            clock.passes(min(step, left))
            left -= step
            pump()
        }
    }

    /// When the next scheduled action is due (wall clock), if any.
    var nextDue: Double? { timers.filter { ends[$0.connection].isOpen }.map(\.due).min() }

    private func runDue() -> Bool {
        let now = clock.now().wall
        timers.removeAll { !ends[$0.connection].isOpen }
        let due = timers.filter { $0.due <= now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
        guard !due.isEmpty else { return false }
        timers.removeAll { $0.due <= now }
        for timer in due where ends[timer.connection].isOpen { timer.action() }
        return true
    }
}

/// A client side an `EmbeddedMock` carries bytes for in `pump`.
public protocol EmbeddedPeer: AnyObject {
    /// False once either side closed it.
    var isOpen: Bool { get }
    /// The client's bytes to the server; true if there were any.
    func sendRequests() -> Bool
    /// The server's bytes to the client; true if there were any. Closes what the server closed.
    func deliverAnswers() -> Bool
}

/// A client's connection to an `EmbeddedMock` as a byte stream (what the built-in provider's
/// `Wire` is; the conformance is declared where both are known, Scenario/InMemory.swift). A read
/// hands the server what the client sent and takes what the server wrote; when there is nothing
/// yet, it lets the manual clock run to the next thing due — up to the timeout, as a socket's read
/// would wait. What is sent waits for the next read: the server's TLS must not run between an
/// OpenSSL failure of the client and the client's reading of its (per-thread) error queue.
public final class EmbeddedWire {
    private unowned let mock: EmbeddedMock
    private let server: EmbeddedConnection
    private let timeout: Double
    private var pending: [UInt8] = []
    private var sent: [UInt8] = []

    fileprivate init(mock: EmbeddedMock, server: EmbeddedConnection, timeout: Double) {
        self.mock = mock
        self.server = server
        self.timeout = timeout
    }

    /// What the client sent last (a TLS alert, say) reaches the server before it closes, as over TCP.
    deinit {
        if !sent.isEmpty { sent.withUnsafeBytes { server.receive($0) } }
        server.close(why: "the client closed the connection")
    }

    public func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // As over TCP, bytes to a server that is closing are accepted, and never read.
        guard server.isOpen else { return false }
        if !server.closesAfterFlush { sent.append(contentsOf: bytes) }
        return true
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let deadline = mock.clock.now().wall + timeout
        if !sent.isEmpty {
            sent.withUnsafeBytes { server.receive($0) }
            sent.removeAll()
        }
        while pending.isEmpty {
            mock.pump()
            pending = server.take()
            guard pending.isEmpty else { break }
            if !server.isOpen || server.closesAfterFlush {
                server.close()
                return 0
            }
            // Nothing to read: time goes by until the next timer, or the read times out.
            let now = mock.clock.now().wall
            guard let due = mock.nextDue, due <= deadline else {
                mock.clock.passes(max(0, deadline - now))
                mock.pump()
                return -1
            }
            mock.clock.passes(max(0, due - now))
        }
        let count = min(buffer.count, pending.count)
        pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        pending.removeFirst(count)
        return count
    }
}
