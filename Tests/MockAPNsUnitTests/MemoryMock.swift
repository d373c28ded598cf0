import APNs
import Foundation
import TestSupport
import World

@testable import HTTP2Server
@testable import MockAPNs

/// The fake APNs as `ringside serve` assembles it (`MockAssembly`: the rules, the world, the control
/// API, faults) with no socket, no thread and no sleep. Each connection is the server's own
/// `Connection` — the engine a worker drives — fed by a `MemoryClient`; its timers and the world's
/// ticks run on a `ManualClock`, so an hour passes in `passes(3600)`. What stays on loopback (TLS,
/// idle timeouts, the workers' event loops, real clients) is in MockAPNsTests.
final class MemoryMock {
    /// Starts at the real time, so that a JWT signed now (`Paths.jwt()`) is fresh.
    let clock = ManualClock(Moment(Date().timeIntervalSince1970.rounded(.down)))
    let assembly: MockAssembly
    let events = EventLog()
    var mock: MockAPNs { assembly.mock }
    var world: SharedWorld { assembly.world }
    private(set) var connections: [MemoryConnection] = []
    /// Actions a connection scheduled (`ConnectionControl.after`), due on the manual clock.
    private var timers: [(due: Double, order: Int, action: () -> Void)] = []
    private var scheduled = 0
    private let hasWorld: Bool

    /// A mock with a world (unless `configure` gives a `directory`); `settings` go through the control
    /// API's `POST /settings`, as `WorldServer`'s do.
    init(
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
        assembly.mock.addObserver(events)
        if let settings { try control("POST", "/settings", settings) }
        pump()
    }

    /// The protocol alone, as `MockServer` serves it: no world, every well-formed device token
    /// registered, apns-ids from the system unless seeded.
    static func protocolOnly(_ validation: ValidationSettings = ValidationSettings(), seed: UInt64? = nil) throws
        -> MemoryMock
    {
        try MemoryMock {
            $0.validation = validation
            $0.directory = EveryTokenRegistered()
            $0.seed = seed
        }
    }

    deinit {
        for connection in connections where connection.isOpen { connection.hangUp() }
        assembly.mock.turnEnded()
    }

    /// A new client connection; its SETTINGS are exchanged before it returns, unless the test
    /// sends before it has read the server's (a burst in the first write).
    func connect(exchangingSettings: Bool = true) -> MemoryConnection {
        let server = Connection(
            fd: -1, id: UInt64(connections.count + 1), peer: "memory", tls: nil, service: mock,
            limits: HTTP2Limits(), now: clock.now().wall)
        server.scheduler = { [unowned self] seconds, action in
            scheduled += 1
            timers.append((clock.now().wall + seconds, scheduled, action))
        }
        let connection = MemoryConnection(server: server)
        connections.append(connection)
        if exchangingSettings { pump() }
        return connection
    }

    /// Carries bytes both ways, runs what is due and lets the world catch up, until nothing moves.
    func pump() {
        for _ in 0..<1000 {
            var moved = false
            for connection in connections where connection.isOpen { moved = connection.sendRequests() || moved }
            moved = runDue() || moved
            if hasWorld { world.withWorld { $0.run(until: clock.now().world) } }
            mock.turnEnded()
            for connection in connections where connection.isOpen { moved = connection.deliverAnswers() || moved }
            if !moved { return }
        }
        preconditionFailure("the clients and the mock kept talking for 1000 rounds")
    }

    /// Time goes by (world and wall), in steps no longer than `step` so that each timer and each of the
    /// world's events happens in its turn.
    func passes(_ seconds: Double, step: Double = 0.05) {
        var left = seconds
        while left > 0 {
            clock.passes(min(step, left))
            left -= step
            pump()
        }
    }

    /// A provider token signed by the manual clock's wall time.
    func jwt(keyId: String = "RINGKEY001", teamId: String = "RINGTEAM01", age: Double = 0) -> String {
        Paths.jwt(keyId: keyId, teamId: teamId, age: age, at: clock.now().wall)
    }

    /// Apple's VoIP example as curl sends it (`Curl.applePush`): a connection of its own, one request,
    /// then the client hangs up. No answer (a dropped stream) is status 0.
    func applePush(
        token: String = Paths.voipToken, headers changes: [String: String?] = [:],
        body: String = #"{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}"#,
        method: String = "POST", path: String? = nil
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

    /// One control-API call, as `WorldServer.control` makes it, without the transport.
    @discardableResult
    func control(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any {
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        let answer = assembly.control!.respond(method: method, path: path, body: bytes)
        pump()
        return try JSONSerialization.jsonObject(with: Data(answer.body))
    }

    /// One control-API answer with its status and header fields (a listing's paging), as sent.
    func controlAnswer(_ path: String, method: String = "GET") -> (
        status: Int, headers: [String: String], json: Any?
    ) {
        let answer = assembly.control!.route(method: method, path: path, body: [])
        return (
            answer.status, Dictionary(answer.headers, uniquingKeysWith: { $1 }),
            try? JSONSerialization.jsonObject(with: Data(answer.body))
        )
    }

    /// Adds a phone with one app of `behaviour`; returns its id and tokens.
    func phone(_ behaviour: String = "reports-at-once", online: Bool = true, extra: [String: Any] = [:]) throws
        -> (id: Int, voip: String, alert: String)
    {
        var app: [String: Any] = ["bundleId": "com.ringside.testapp", "behaviour": behaviour]
        app.merge(extra) { $1 }
        let phone =
            try control("POST", "/phones", ["name": "alice's iPhone", "online": online, "apps": [app]])
            as! [String: Any]
        let apps = phone["apps"] as! [[String: Any]]
        return (phone["id"] as! Int, apps[0]["voipToken"] as! String, apps[0]["alertToken"] as! String)
    }

    /// The push's outcome once final, letting up to `seconds` of time go by for it; `[:]` if unknown.
    func outcome(apnsId: String, seconds: Double = 60) throws -> [String: Any] {
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

    private func runDue() -> Bool {
        let now = clock.now().wall
        let due = timers.filter { $0.due <= now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
        guard !due.isEmpty else { return false }
        timers.removeAll { $0.due <= now }
        for timer in due { timer.action() }
        return true
    }
}

/// One client connection of a `MemoryMock`: nghttp2's client session on one side, the server's
/// `Connection` on the other.
final class MemoryConnection {
    let client = MemoryClient()
    let server: Connection
    /// False once either side closed it; `closedWhy` then says why, as the mock's log would.
    private(set) var isOpen = true
    private(set) var closedWhy: String?

    init(server: Connection) { self.server = server }

    /// Queues a request as a provider sends Apple's VoIP push; `changes` replace or (nil) remove headers,
    /// `extra` fields follow them (a duplicate, say).
    @discardableResult
    func push(
        token: String = Paths.voipToken, jwt: String, _ changes: [String: String?] = [:],
        body: [UInt8] = Array(#"{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}"#.utf8),
        method: String = "POST", path: String? = nil, extra: [(String, String)] = []
    ) -> Int32 {
        var fields: [(String, String)] = [
            (":method", method), (":scheme", "https"), (":path", path ?? "/3/device/\(token)"),
            (":authority", "api.sandbox.push.apple.com"), ("authorization", "bearer \(jwt)"),
            ("apns-topic", Paths.topic), ("apns-push-type", "voip"), ("apns-expiration", "0"), ("apns-priority", "10"),
        ]
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let index = fields.firstIndex(where: { $0.0 == name }) {
                if let value { fields[index].1 = value } else { fields.remove(at: index) }
            } else if let value {
                fields.append((name, value))
            }
        }
        return client.request(fields + extra, body: body)
    }

    /// What the client saw on `stream` so far.
    func answer(_ stream: Int32) -> MemoryClient.Answer { client.answers[stream] ?? MemoryClient.Answer() }

    /// The client closes the connection, as curl does after its answer.
    func hangUp() {
        guard isOpen else { return }
        server.endReason = server.endReason ?? "the client closed the connection"
        close()
    }

    /// The client's bytes to the server; true if there were any.
    fileprivate func sendRequests() -> Bool {
        let request = client.output()
        guard !request.isEmpty else { return false }
        let keepOpen = request.withUnsafeBytes { server.received($0) }
        if !keepOpen { server.closeAfterFlush = true }
        return true
    }

    /// The server's bytes to the client; true if there were any. Closes what the server closed.
    fileprivate func deliverAnswers() -> Bool {
        server.flush()
        let answer = Array(server.output[server.outputOffset...])
        server.output.removeAll()
        server.outputOffset = 0
        if !answer.isEmpty { client.receive(answer) }
        if server.closeAfterFlush { close() }
        return !answer.isEmpty
    }

    private func close() {
        isOpen = false
        closedWhy = server.endReason ?? "closed"
        server.closed()
    }
}

extension CurlResponse {
    /// What curl would have printed for this answer.
    init(_ answer: MemoryClient.Answer) {
        self.init(
            status: answer.closed || !answer.headers.isEmpty ? answer.status : 0,
            headers: answer.headers.filter { !$0.key.hasPrefix(":") },
            body: String(decoding: answer.body, as: UTF8.self), stderr: "")
    }
}
