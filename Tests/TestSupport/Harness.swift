import APNs
import Foundation
import HTTP2Server
import MockAPNs
import Scenario
import ScenarioLanguage
import Testing

/// Paths of the committed test credentials and client scripts.
public enum Paths {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    public static let certs = root + "/certs-test"
    public static let clients = root + "/Tests/clients"
    public static let ca = certs + "/ca.pem"
    public static let voipToken = String(repeating: "ab", count: 32)
    public static let topic = "com.ringside.testapp.voip"
    /// The debug build of `ringside` that `swift build` leaves.
    public static let ringside = root + "/.build/debug/ringside"

    /// The bundled scenarios, as paths under scenarios/ (the library is grouped by topic).
    public static let bundled: [String] = {
        let found = FileManager.default.enumerator(atPath: root + "/scenarios")?.compactMap { $0 as? String } ?? []
        return found.filter { $0.hasSuffix(".ring") }.sorted()
    }()

    /// A bundled scenario's full path, by its file name (`04-410-forgets-token.ring`).
    public static func scenario(_ name: String) -> String {
        guard let relative = bundled.first(where: { $0 == name || $0.hasSuffix("/" + name) }) else {
            preconditionFailure("no bundled scenario is named \(name)")
        }
        return root + "/scenarios/" + relative
    }

    /// A provider token issued `age` seconds before `now` (the wall clock unless a test's clock says).
    public static func jwt(
        keyId: String = "RINGKEY001", teamId: String = "RINGTEAM01", age: Double = 0, der: Bool = false,
        at now: Double = Date().timeIntervalSince1970
    )
        -> String
    {
        let key = try! ES256Key(pem: String(contentsOfFile: "\(certs)/AuthKey_\(keyId).p8", encoding: .utf8))
        return try! ProviderToken.sign(
            keyId: keyId, teamId: teamId, issuedAt: Int64(now - age), key: key, derSignature: der)
    }
}

/// Collects every event the mock emits, for assertions.
public final class EventLog: MockObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [MockEvent] = []

    public init() {}

    public func observe(_ event: MockEvent) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    public var all: [MockEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    public var refusals: [String] {
        all.compactMap { if case .connectionRefused(_, let why, _) = $0 { return why } else { return nil } }
    }

    public var closings: [String] {
        all.compactMap { if case .connectionClosed(_, let why, _) = $0 { return why } else { return nil } }
    }

    public var pushes: [PushRecord] {
        all.compactMap { if case .push(let record) = $0 { return record } else { return nil } }
    }
}

/// A fake APNs on a free loopback port, in this process, with TLS from certs-test/.
/// Where a test's fake APNs listens.
public protocol MockEndpoint {
    var port: UInt16 { get }
    var url: String { get }
}

public final class MockServer: MockEndpoint {
    public let assembly: MockAssembly
    public let mock: MockAPNs
    public let http2: HTTP2Server
    public let events = EventLog()
    public var port: UInt16 { http2.port }
    public var url: String { "https://127.0.0.1:\(port)" }

    public init(
        settings: ValidationSettings = ValidationSettings(), authentication: AuthenticationMode = .either,
        directory: any DeviceDirectory = EveryTokenRegistered(), faults: FaultPlan = FaultPlan(),
        plaintext: Bool = false, idleTimeout: Double? = nil, limits: HTTP2Limits = HTTP2Limits(),
        world: SharedWorld? = nil, clock: ManualClock? = nil, seed: UInt64? = nil, eventLoop: EventLoop = .standard
    ) throws {
        // The same assembly as `ringside serve`; without a world, `directory` answers for tokens.
        var options = MockOptions(certs: Paths.certs)
        options.validation = settings
        options.authentication = authentication
        options.world = world
        options.directory = world == nil ? directory : nil
        options.faults = faults
        options.plaintext = plaintext
        options.manualClock = clock
        options.seed = seed
        options.server.port = 0
        options.server.idleTimeout = idleTimeout
        options.server.limits = limits
        options.server.workers = 2
        options.server.eventLoop = eventLoop
        assembly = try MockAssembly(options)
        mock = assembly.mock
        http2 = assembly.server
        mock.addObserver(events)
        try assembly.start()
    }

    public func stop(debugData: [UInt8] = []) { http2.stop(goAwayDebugData: debugData) }

    /// Waits (bounded) until no connection is open: the server let go of every client.
    public func waitUntilIdle(seconds: Double = 5) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while http2.openConnections > 0, Date() < deadline { usleep(10_000) }
        return http2.openConnections
    }

    deinit { assembly.stop() }
}

/// The result of one external command.
public struct CommandResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a command to completion (no shell), with an optional standard input; `environment` adds to
/// (or replaces) this process's variables.
public func run(
    _ executable: String, _ arguments: [String], input: Data? = nil, directory: String? = nil,
    environment: [String: String] = [:]
) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let inPipe = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
    try process.run()
    if let input {
        inPipe.fileHandleForWriting.write(input)
        try inPipe.fileHandleForWriting.close()
    }
    // Read both pipes before waiting, so a chatty process cannot fill a pipe and block.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readAllRetryingInterrupts()
        group.leave()
    }
    let outData = out.fileHandleForReading.readAllRetryingInterrupts()
    group.wait()
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// An HTTP/2 response as curl printed it.
public struct CurlResponse {
    public var status: Int
    public var headers: [String: String]
    public var body: String
    public var stderr: String

    public init(status: Int, headers: [String: String], body: String, stderr: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stderr = stderr
    }

    /// The `reason` of an error body.
    public var reason: String? {
        guard let data = body.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }
}

/// curl, the real one: `curl --http2` as in Apple's example.
public enum Curl {
    public static func send(_ arguments: [String]) throws -> CurlResponse {
        let result = try run("/usr/bin/curl", ["-sS", "-i", "--max-time", "20"] + arguments)
        var headers: [String: String] = [:]
        var status = 0
        let parts = result.stdout.components(separatedBy: "\r\n\r\n")
        for line in (parts.first ?? "").components(separatedBy: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
            } else if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
        }
        let body = parts.dropFirst().joined(separator: "\r\n\r\n")
        return CurlResponse(status: status, headers: headers, body: body, stderr: result.stderr)
    }

    /// Apple's VoIP example against `server`, with `changes` applied to the header list.
    public static func applePush(
        _ server: any MockEndpoint, token: String = Paths.voipToken, headers changes: [String: String?] = [:],
        body: String = AppleExample.payload, method: String? = nil, path: String? = nil, extra: [String] = []
    ) throws -> CurlResponse {
        let fields = AppleExample.headers(jwt: Paths.jwt(), changes)
        var arguments = ["--http2", "--cacert", Paths.ca]
        for (name, value) in fields { arguments += ["-H", "\(name): \(value)"] }
        if let method { arguments += ["-X", method] }
        if !body.isEmpty {
            arguments += ["--data-binary", body]
        } else if method == nil {
            arguments += ["-X", "POST"]
        }
        arguments += extra
        arguments.append(server.url + (path ?? "/3/device/\(token)"))
        return try send(arguments)
    }
}

/// Apple's VoIP push example, as curl (`Curl.applePush`) and the in-memory client (`MemoryConnection.push`)
/// send it.
public enum AppleExample {
    public static let payload = #"{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-000000000001","handle":"alice"}"#

    /// Its header fields after the pseudo-headers; each of `changes` replaces a field's value, removes
    /// the field (nil) or adds one at the end (in name order).
    public static func headers(jwt: String, _ changes: [String: String?]) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("authorization", "bearer \(jwt)"), ("apns-topic", Paths.topic), ("apns-push-type", "voip"),
            ("apns-expiration", "0"), ("apns-priority", "10"),
        ]
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let index = fields.firstIndex(where: { $0.0 == name }) {
                if let value { fields[index].1 = value } else { fields.remove(at: index) }
            } else if let value {
                fields.append((name, value))
            }
        }
        return fields
    }
}

/// The python-h2 probe (Tests/clients/h2_probe.py) for frames curl does not show.
/// Golden text: line by line, `<any>` inside a line matching any run of characters.
public enum Golden {
    public static func matchesText(_ expected: String, _ actual: String) -> Bool {
        let pattern =
            "^"
            + NSRegularExpression.escapedPattern(for: expected.trimmingCharacters(in: .whitespacesAndNewlines))
            .replacingOccurrences(of: "<any>", with: ".*") + "$"
        return actual.trimmingCharacters(in: .whitespacesAndNewlines).range(of: pattern, options: .regularExpression)
            != nil
    }
}

public enum Probe {
    public static func run(_ config: [String: Any]) throws -> [String: Any] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
        let result = try TestSupport.run("/usr/bin/env", ["python3", Paths.clients + "/h2_probe.py", json])
        guard let data = result.stdout.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ProbeError(output: result.stdout + result.stderr) }
        return object
    }

    /// Request headers for a VoIP push in the probe's format.
    public static func voip(jwt: String? = Paths.jwt(), token: String = Paths.voipToken, extra: [[String]] = [])
        -> [String:
        Any]
    {
        var headers: [[String]] = [
            [":method", "POST"], [":scheme", "https"], [":authority", "localhost"], [":path", "/3/device/\(token)"],
            ["apns-topic", Paths.topic], ["apns-push-type", "voip"], ["apns-expiration", "0"],
        ]
        if let jwt { headers.append(["authorization", "bearer \(jwt)"]) }
        headers += extra
        return ["headers": headers, "body": #"{"aps":{}}"#]
    }

    public static func reasons(_ output: [String: Any]) -> [String?] {
        (output["responses"] as? [[String: Any]] ?? []).map { response in
            let body = response["body"] as? String ?? ""
            guard let data = body.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else {
                return (response["headers"] as? [String: String])?[":status"]
            }
            return object["reason"] as? String
        }
    }

    public static func goAwayReason(_ output: [String: Any]) -> String? {
        guard let goaway = output["goaway"] as? [String: Any], let debug = goaway["debug"] as? String,
            let data = debug.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["reason"] as? String
    }
}

public struct ProbeError: Error, CustomStringConvertible {
    public let output: String
    public var description: String { "probe failed: \(output)" }
}

/// Compares output with a golden file line by line; `<any>` in the golden file matches anything.
public func expectMatchesGolden(
    _ output: String, _ goldenPath: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
)
    throws
{
    let golden = try String(contentsOfFile: goldenPath, encoding: .utf8)
    let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let expected = golden.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.count == expected.count, "\(output)", sourceLocation: sourceLocation)
    for (line, pattern) in zip(lines, expected) {
        #expect(
            Golden.matchesText(pattern, line), "\(line)\n≠ \(pattern)",
            sourceLocation: sourceLocation)
    }
}

/// Where a test runs a scenario: in memory when only the built-in provider speaks to the mock, on
/// loopback when a process does (`ScenarioTransport.canRunInMemory`).
public func transport(for file: SourceFile, provider: ProviderUnderTest? = nil) -> ScenarioTransport {
    guard let plan = Checker.plan(file, provider: provider).plan, ScenarioTransport.canRunInMemory(plan) else {
        return .loopback
    }
    return .memory
}

/// A scenario's body (what follows its `scenario:` line) run as scenarios/t.ring.
public func runScenario(_ body: String, transport: ScenarioTransport) -> ScenarioResult {
    ScenarioRunner.run(
        SourceFile(path: Paths.root + "/scenarios/t.ring", text: "scenario: t\n" + body), certs: Paths.certs,
        transport: transport)
}

/// The `ring` examples of docs/scenario-language.md, in order.
public enum LanguageReference {
    public static let path = Paths.root + "/docs/scenario-language.md"

    public static func examples() throws -> [String] {
        let markdown = try String(contentsOfFile: path, encoding: .utf8)
        var examples: [String] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            if line == "```ring" {
                current = []
            } else if line == "```", let lines = current {
                examples.append(lines.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return examples
    }

    /// Example `index` (from 0) as a source file named after its place in the reference.
    public static func example(_ index: Int) throws -> SourceFile { file(index, try examples()[index]) }

    private static func file(_ index: Int, _ text: String) -> SourceFile {
        SourceFile(path: path + "#example-\(index + 1)", text: text)
    }

    /// The examples that run in memory (`transport(for:)`), and those that need a socket; the
    /// reference is read once.
    public static func indices(inMemory: Bool) -> [Int] {
        let examples = (try? examples()) ?? []
        return examples.indices.filter { (transport(for: file($0, examples[$0])) == .memory) == inMemory }
    }
}

/// The example checks clean and passes where it can run.
public func expectTheExamplePasses(_ index: Int) throws {
    let file = try LanguageReference.example(index)
    #expect(Checker.check(file).isEmpty, "example \(index + 1): \(Checker.check(file).map(\.detail))")
    let result = ScenarioRunner.run(file, certs: Paths.certs, transport: transport(for: file))
    #expect(
        result.passed,
        "example \(index + 1): \(result.expectations.filter { !$0.passed }.map(\.happened)) \(result.error ?? "")")
}
