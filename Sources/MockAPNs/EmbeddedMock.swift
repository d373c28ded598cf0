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
    /// The client sides `pump` carries bytes for.
    private var peers: [any EmbeddedPeer] = []
    /// The wires dialled, by connection, while their clients hold them: `pump` hands over what each
    /// has sent, and what a timer of its connection writes is one write of its own.
    private var wires: [Int: Weak<EmbeddedWire>] = [:]
    /// Actions a connection scheduled (`ConnectionControl.after`), due on the manual clock; a closed
    /// connection's are dropped, as a worker drops them.
    private var timers: [(due: Double, order: Int, connection: Int, action: () -> Void)] = []
    private var scheduled = 0
    private let hasWorld: Bool
    /// The server certificate new connections get (the certificate fault switches it).
    public private(set) var tls: TLSContext?
    /// Where a client believes it connects: the scheme the mock speaks, on APNs's port. Nothing is
    /// bound there; `dial` is the way in.
    public var url: String { "\(tls == nil ? "http" : "https")://127.0.0.1:\(Self.port)" }
    public static let port: UInt16 = 443
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
            // Weakly: the mock is the assembly's, which is this one's, and a strong capture kept all
            // three alive for ever (an adversary found a TLS EmbeddedMock never freed, its
            // connections never closed).
            nonisolated(unsafe) let embedded = Weak(self)
            assembly.mock.switchServerCertificate = { untrusted in
                embedded.value?.tls = untrusted ? certificates.untrusted : certificates.trusted
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
        let wire = EmbeddedWire(mock: self, server: open(tls: tls), timeout: timeout)
        wires = wires.filter { $0.value.value != nil }
        wires[ends.count - 1] = Weak(wire)
        return wire
    }

    /// Carries bytes both ways, runs what is due and lets the world catch up, until nothing moves.
    public func pump() {
        for _ in 0..<1000 {
            var moved = false
            // What a client sent and then left without reading (a TLS alert after a refused
            // handshake, a certificate flight) reaches the server, as over TCP.
            for wire in wires.values { moved = wire.value?.handOver() ?? false || moved }
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
        for timer in due where ends[timer.connection].isOpen {
            timer.action()
            // A worker writes out after each timer: the client may read one write before the next.
            wires[timer.connection]?.value?.takeWrite()
        }
        return true
    }
}

/// A reference that does not keep its object alive.
private struct Weak<Value: AnyObject> {
    weak var value: Value?
    init(_ value: Value) { self.value = value }
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
/// `Wire` is; the conformance is declared where both are known, Scenario/ScenarioMock.swift). A
/// read takes what the server wrote; when there is nothing yet, it lets the manual clock run to the
/// next thing due — up to the timeout, as a socket's read would wait.
///
/// Once the server's TLS handshake is over, what the client sends reaches the server at once and
/// is answered at once, as over TCP, where the server reads a request as it arrives and writes its
/// answer before the next (a stream sent after the server lowered its limit is refused). During
/// the handshake it waits for the client's next read, or for the next `pump`: the server's TLS must
/// not run between an OpenSSL failure of the client and the client's reading of its (per-thread)
/// error queue, and a client whose handshake is over has none pending.
public final class EmbeddedWire {
    private unowned let mock: EmbeddedMock
    private let server: EmbeddedConnection
    private let timeout: Double
    /// What the server wrote and the client has not read, write by write: a read takes from one
    /// write, as a client reading a socket finds only what has arrived.
    private var writes: [[UInt8]] = []
    private var sent: [UInt8] = []

    fileprivate init(mock: EmbeddedMock, server: EmbeddedConnection, timeout: Double) {
        self.mock = mock
        self.server = server
        self.timeout = timeout
    }

    /// What the client sent last (a TLS alert, say) reaches the server before it closes, as over TCP.
    deinit {
        handOver()
        server.close(why: "the client closed the connection")
    }

    public func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // As over TCP, bytes to a server that is closing are accepted, and never read.
        guard server.isOpen else { return false }
        guard !server.closesAfterFlush else { return true }
        sent.append(contentsOf: bytes)
        if !server.isAwaitingHandshake { handOver() }
        return true
    }

    /// The server reads what was sent and writes its answer, as a worker does after each read;
    /// true if there was anything to read.
    @discardableResult
    func handOver() -> Bool {
        guard !sent.isEmpty, server.isOpen else { return false }
        sent.withUnsafeBytes { server.receive($0) }
        sent.removeAll()
        takeWrite()
        return true
    }

    /// What the server has written since, as one write.
    func takeWrite() {
        let bytes = server.take()
        if !bytes.isEmpty { writes.append(bytes) }
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let deadline = mock.clock.now().wall + timeout
        handOver()
        while writes.isEmpty {
            mock.pump()
            takeWrite()
            guard writes.isEmpty else { break }
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
        let count = min(buffer.count, writes[0].count)
        writes[0].withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        writes[0].removeFirst(count)
        if writes[0].isEmpty { writes.removeFirst() }
        return count
    }
}
