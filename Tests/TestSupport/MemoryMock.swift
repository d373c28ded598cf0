import APNs
import Foundation
import HTTP2Server
import MockAPNs
import Provider
import Scenario
import World

/// The fake APNs in memory (`EmbeddedMock`: `serve`'s assembly with no socket, no thread and no
/// sleep) with what tests drive it by: `MemoryClient` connections (`connect`), the built-in
/// provider's client (`clientConfiguration`), the control API over HTTP/2 in memory, Apple's example
/// push. What stays on loopback (idle timeouts, the workers' event loops, the certificate switch
/// with a real handshake, real clients) is in the integration targets.
public final class MemoryMock: WorldControl {
    public let embedded: EmbeddedMock
    public let events = EventLog()
    /// Starts at the real time, so that a JWT signed now (`Paths.jwt()`) is fresh.
    public var clock: ManualClock { embedded.clock }
    public var assembly: MockAssembly { embedded.assembly }
    public var mock: MockAPNs { assembly.mock }
    public var world: SharedWorld { assembly.world }

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
        options.controlPort = 0  // the control API is built, never bound: `control` calls it in memory
        options.plaintext = true
        configure(&options)
        embedded = try EmbeddedMock(
            options, clock: ManualClock(Moment(Date().timeIntervalSince1970.rounded(.down))))
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

    /// A new cleartext client connection; its SETTINGS are exchanged before it returns, unless the
    /// test sends before it has read the server's (a burst in the first write).
    public func connect(exchangingSettings: Bool = true) -> MemoryConnection {
        let connection = MemoryConnection(server: embedded.open(tls: nil))
        embedded.add(connection)
        if exchangingSettings { pump() }
        return connection
    }

    /// What `ClientConfiguration.dial` calls: a connection to this mock, over TLS unless it is
    /// cleartext. Reads wait on the manual clock.
    public func dial(timeout: Double) -> EmbeddedWire { embedded.dial(timeout: timeout) }

    /// The built-in provider's client configuration for this mock: `url`'s scheme as the mock
    /// speaks, every connection dialled in memory, the provider's clock the manual clock's wall time.
    public func clientConfiguration(
        authentication: ClientConfiguration.Authentication = .token(
            keyFile: Paths.certs + "/AuthKey_RINGKEY001.p8", keyId: "RINGKEY001", teamId: "RINGTEAM01"),
        timeout: Double = 10
    ) -> ClientConfiguration {
        embedded.clientConfiguration(
            caFile: Paths.ca, authentication: authentication, timeout: timeout)
    }

    /// Carries bytes both ways, runs what is due and lets the world catch up, until nothing moves.
    public func pump() { embedded.pump() }

    /// Time goes by (world and wall), in steps no longer than `step` so that each timer and each of the
    /// world's events happens in its turn.
    public func passes(_ seconds: Double, step: Double = 0.05) { embedded.passes(seconds, step: step) }

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
        let server = embedded.open(
            tls: nil, service: assembly.control!, limits: assembly.controlServer!.configuration.limits)
        let connection = MemoryConnection(server: server)
        embedded.add(connection)
        pump()
        let fields = [
            (":method", method), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path),
            ("content-type", "application/json"),
        ]
        let stream = connection.client.request(fields, body: body)
        pump()
        let answer = connection.answer(stream)
        connection.hangUp()
        embedded.remove(connection)
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
}

/// One cleartext client connection of a `MemoryMock`: nghttp2's client session on one side, the
/// server's `Connection` on the other.
public final class MemoryConnection: EmbeddedPeer {
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

    public func sendRequests() -> Bool {
        let request = client.output()
        guard !request.isEmpty else { return false }
        request.withUnsafeBytes { server.receive($0) }
        return true
    }

    public func deliverAnswers() -> Bool {
        let answer = server.take()
        if !answer.isEmpty { client.receive(answer) }
        if server.closesAfterFlush { server.close() }
        return !answer.isEmpty
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
