import APNs
import Foundation
import HTTP2Server
import MockAPNs
import Provider
import World

/// The fake APNs as `ringside serve` assembles it (`MockAssembly`: the rules, the world, the control
/// API, faults) with no socket, no thread and no sleep. Each connection is the server's own
/// `Connection` — the engine a worker drives — fed from memory: by a `MemoryClient` (`connect`), or
/// by the built-in provider's client through a `MemoryWire` (`dial`), TLS included. Timers and the
/// world's ticks run on a `ManualClock`: an hour passes in `passes(3600)`. What stays on loopback
/// (idle timeouts, the workers' event loops, the certificate switch, real clients) is in the
/// integration targets. One thread drives it.
public final class MemoryMock: WorldControl {
    /// Starts at the real time, so that a JWT signed now (`Paths.jwt()`) is fresh.
    public let clock = ManualClock(Moment(Date().timeIntervalSince1970.rounded(.down)))
    public let assembly: MockAssembly
    public let events = EventLog()
    public var mock: MockAPNs { assembly.mock }
    public var world: SharedWorld { assembly.world }
    /// Every connection's server side, in the order they were opened (the mock numbers them so).
    private var ends: [EmbeddedConnection] = []
    private var clients: [MemoryConnection] = []
    /// Actions a connection scheduled (`ConnectionControl.after`), due on the manual clock; a closed
    /// connection's are dropped, as a worker drops them.
    private var timers: [(due: Double, order: Int, connection: Int, action: () -> Void)] = []
    private var scheduled = 0
    private let hasWorld: Bool
    /// The server certificate new connections get (the certificate fault switches it).
    private var tls: TLSContext?

    /// A mock with a world (unless `configure` gives a `directory`); `settings` go through the control
    /// API's `POST /settings`, as `WorldServer`'s do. Cleartext unless `configure` turns
    /// `plaintext` off: then the built-in provider's client dials it over TLS.
    public init(
        seed: UInt64 = 1, settings: [String: Any]? = nil, acceptsUnknownTokens: Bool = false,
        kept: Int = MockOptions.keptByDefault, _ configure: (inout MockOptions) -> Void = { _ in }
    ) throws {
        var options = MockOptions(certs: Paths.certs)
        options.seed = seed
        options.kept = kept
        options.acceptsUnknownTokens = acceptsUnknownTokens
        options.controlPort = 0  // the control API is built, never bound: `control` calls it directly
        options.plaintext = true
        configure(&options)
        options.manualClock = clock
        hasWorld = options.directory == nil
        assembly = try MockAssembly(options)
        tls = assembly.certificates?.trusted
        if let certificates = assembly.certificates {
            nonisolated(unsafe) let memory = self
            assembly.mock.switchServerCertificate = { untrusted in
                memory.tls = untrusted ? certificates.untrusted : certificates.trusted
            }
        }
        assembly.mock.addObserver(events)
        if let settings { try control("POST", "/settings", settings) }
        pump()
    }

    /// The protocol alone, as `MockServer` serves it: no world, every well-formed device token
    /// registered, apns-ids from the system unless seeded.
    public static func protocolOnly(_ validation: ValidationSettings = ValidationSettings(), seed: UInt64? = nil)
        throws -> MemoryMock
    {
        try MemoryMock {
            $0.validation = validation
            $0.directory = EveryTokenRegistered()
            $0.seed = seed
        }
    }

    deinit {
        for end in ends where end.isOpen { end.close(why: "the test ended") }
        assembly.mock.turnEnded()
    }

    /// A new connection's server side, its timers on the manual clock.
    fileprivate func open(
        tls: TLSContext?, service: (any HTTP2Service)? = nil, limits: HTTP2Limits = HTTP2Limits()
    ) -> EmbeddedConnection {
        let index = ends.count
        let end = EmbeddedConnection(
            id: UInt64(index + 1), tls: tls, service: service ?? mock, limits: limits, now: clock.now().wall
        ) { [unowned self] seconds, action in
            scheduled += 1
            timers.append((clock.now().wall + seconds, scheduled, index, action))
        }
        ends.append(end)
        return end
    }

    /// A new cleartext client connection; its SETTINGS are exchanged before it returns, unless the
    /// test sends before it has read the server's (a burst in the first write).
    public func connect(exchangingSettings: Bool = true) -> MemoryConnection {
        let connection = MemoryConnection(server: open(tls: nil))
        clients.append(connection)
        if exchangingSettings { pump() }
        return connection
    }

    /// What `ClientConfiguration.dial` calls: a connection to this mock, over TLS unless it is
    /// cleartext. Reads wait on the manual clock.
    public func dial(timeout: Double) -> MemoryWire { MemoryWire(mock: self, server: open(tls: tls), timeout: timeout) }

    /// The built-in provider's client configuration for this mock: `url`'s scheme as the mock
    /// speaks, every connection dialled in memory, the provider's clock the manual clock's wall time.
    public func clientConfiguration(
        authentication: ClientConfiguration.Authentication = .token(
            keyFile: Paths.certs + "/AuthKey_RINGKEY001.p8", keyId: "RINGKEY001", teamId: "RINGTEAM01"),
        timeout: Double = 10
    ) -> ClientConfiguration {
        var configuration = ClientConfiguration(
            url: tls == nil ? "http://127.0.0.1:443" : "https://127.0.0.1:443", caFile: Paths.ca,
            authentication: authentication, timeout: timeout)
        nonisolated(unsafe) let mock = self
        configuration.dial = { _, _, timeout in mock.dial(timeout: timeout) }
        let clock = clock
        configuration.now = { clock.now().wall }
        return configuration
    }

    /// Carries bytes both ways, runs what is due and lets the world catch up, until nothing moves.
    public func pump() {
        for _ in 0..<1000 {
            var moved = false
            for client in clients where client.isOpen { moved = client.sendRequests() || moved }
            moved = runDue() || moved
            if hasWorld { world.withWorld { $0.run(until: clock.now().world) } }
            mock.turnEnded()
            for client in clients where client.isOpen { moved = client.deliverAnswers() || moved }
            if !moved { return }
        }
        preconditionFailure("the clients and the mock kept talking for 1000 rounds")
    }

    /// Time goes by (world and wall), in steps no longer than `step` so that each timer and each of the
    /// world's events happens in its turn.
    public func passes(_ seconds: Double, step: Double = 0.05) {
        var left = seconds
        while left > 0 {
            clock.passes(min(step, left))
            left -= step
            pump()
        }
    }

    /// When the next scheduled action is due (wall clock), if any.
    fileprivate var nextDue: Double? { timers.filter { ends[$0.connection].isOpen }.map(\.due).min() }

    /// A provider token signed by the manual clock's wall time.
    public func jwt(keyId: String = "RINGKEY001", teamId: String = "RINGTEAM01", age: Double = 0) -> String {
        Paths.jwt(keyId: keyId, teamId: teamId, age: age, at: clock.now().wall)
    }

    /// Apple's VoIP example as curl sends it (`Curl.applePush`): a connection of its own, one request,
    /// then the client hangs up. No answer (a dropped stream) is status 0.
    public func applePush(
        token: String = Paths.voipToken, headers changes: [String: String?] = [:],
        body: String = AppleExample.payload, method: String = "POST", path: String? = nil
    ) -> CurlResponse {
        let connection = connect()
        let stream = connection.push(
            token: token, jwt: jwt(), changes, body: Array(body.utf8), method: method, path: path)
        pump()
        let answer = connection.answer(stream)
        connection.hangUp()
        pump()
        return CurlResponse(answer)
    }

    /// One control-API call, as `WorldServer.control` makes it: over HTTP/2 in memory, through the
    /// control API's own connection handler (its checks, its header fields).
    @discardableResult
    public func control(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any {
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        return try JSONSerialization.jsonObject(with: Data(controlExchange(method, path, bytes).body))
    }

    /// One control-API answer with its status and header fields (a listing's paging), as sent.
    public func controlAnswer(_ path: String, method: String = "GET") -> (
        status: Int, headers: [String: String], json: Any?
    ) {
        let answer = controlExchange(method, path, [])
        return (answer.status, answer.headers, try? JSONSerialization.jsonObject(with: Data(answer.body)))
    }

    private func controlExchange(_ method: String, _ path: String, _ body: [UInt8]) -> MemoryClient.Answer {
        let server = open(
            tls: nil, service: assembly.control!, limits: assembly.controlServer!.configuration.limits)
        let connection = MemoryConnection(server: server)
        clients.append(connection)
        pump()
        let fields = [
            (":method", method), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path),
            ("content-type", "application/json"),
        ]
        let stream = connection.client.request(fields, body: body)
        pump()
        let answer = connection.answer(stream)
        connection.hangUp()
        clients.removeAll { $0 === connection }
        return answer
    }

    /// The push's outcome once final, letting up to `seconds` of time go by for it; `[:]` if unknown.
    public func outcome(apnsId: String, seconds: Double = 5) throws -> [String: Any] {
        var waited = 0.0
        while true {
            let all = try control("GET", "/outcomes") as! [[String: Any]]
            let fate = all.first { $0["apnsId"] as? String == apnsId }
            if let fate, fate["outcome"] as? String != "pending" || waited >= seconds { return fate }
            if waited >= seconds { return [:] }
            passes(0.05)
            waited += 0.05
        }
    }

    fileprivate func runDue() -> Bool {
        let now = clock.now().wall
        timers.removeAll { !ends[$0.connection].isOpen }
        let due = timers.filter { $0.due <= now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
        guard !due.isEmpty else { return false }
        timers.removeAll { $0.due <= now }
        for timer in due where ends[timer.connection].isOpen { timer.action() }
        return true
    }
}

/// One cleartext client connection of a `MemoryMock`: nghttp2's client session on one side, the
/// server's `Connection` on the other.
public final class MemoryConnection {
    public let client = MemoryClient()
    fileprivate let server: EmbeddedConnection
    /// False once either side closed it.
    public var isOpen: Bool { server.isOpen }

    fileprivate init(server: EmbeddedConnection) { self.server = server }

    /// Queues a request as a provider sends Apple's VoIP push; `changes` replace or (nil) remove headers,
    /// `extra` fields follow them (a duplicate, say).
    @discardableResult
    public func push(
        token: String = Paths.voipToken, jwt: String, _ changes: [String: String?] = [:],
        body: [UInt8] = Array(AppleExample.payload.utf8), method: String = "POST", path: String? = nil,
        extra: [(String, String)] = []
    ) -> Int32 {
        let pseudo = [
            (":method", method), (":scheme", "https"), (":path", path ?? "/3/device/\(token)"),
            (":authority", "api.sandbox.push.apple.com"),
        ]
        return client.request(pseudo + AppleExample.headers(jwt: jwt, changes) + extra, body: body)
    }

    /// What the client saw on `stream` so far.
    public func answer(_ stream: Int32) -> MemoryClient.Answer { client.answers[stream] ?? MemoryClient.Answer() }

    /// The client closes the connection, as curl does after its answer.
    public func hangUp() { server.close(why: "the client closed the connection") }

    /// Bytes the test wrote itself (a burst gathered from `client.output()`), in one read.
    public func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { server.receive($0) } }

    /// The client's bytes to the server; true if there were any.
    fileprivate func sendRequests() -> Bool {
        let request = client.output()
        guard !request.isEmpty else { return false }
        request.withUnsafeBytes { server.receive($0) }
        return true
    }

    /// The server's bytes to the client; true if there were any. Closes what the server closed.
    fileprivate func deliverAnswers() -> Bool {
        let answer = server.take()
        if !answer.isEmpty { client.receive(answer) }
        if server.closesAfterFlush { server.close() }
        return !answer.isEmpty
    }
}

/// The built-in provider's connection to a `MemoryMock` (`ClientConfiguration.dial`): a read hands
/// the server's `Connection` what the client sent and takes what the server wrote; when there is
/// nothing yet, it lets the manual clock run to the next thing due — up to the timeout, as a socket's
/// read would wait. What is sent waits for the next read: the server's TLS must not run between
/// an OpenSSL failure of the client and the client's reading of its (per-thread) error queue.
public final class MemoryWire: Wire {
    private unowned let mock: MemoryMock
    private let server: EmbeddedConnection
    private let timeout: Double
    private var pending: [UInt8] = []
    private var sent: [UInt8] = []

    fileprivate init(mock: MemoryMock, server: EmbeddedConnection, timeout: Double) {
        self.mock = mock
        self.server = server
        self.timeout = timeout
    }

    deinit { server.close(why: "the client closed the connection") }

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

extension CurlResponse {
    /// What curl would have printed for this answer.
    public init(_ answer: MemoryClient.Answer) {
        self.init(
            status: answer.closed || !answer.headers.isEmpty ? answer.status : 0,
            headers: answer.headers.filter { !$0.key.hasPrefix(":") },
            body: String(decoding: answer.body, as: UTF8.self), stderr: "")
    }
}
