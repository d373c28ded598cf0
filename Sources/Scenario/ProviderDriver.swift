import APNs
import Foundation
import HTTP2Server
import Provider
import ScenarioLanguage
import Synchronization

/// A provider under test as the runner drives it (docs/architecture.md, "The provider contract"). A method
/// that throws `StepFailure` fails the scenario at the step that called it.
protocol ProviderDriver: AnyObject {
    func register(user: String, token: String, kind: TokenStore.Kind) throws
    func unregister(user: String, token: String) throws
    /// Asks the provider to ring `user`; the payload carries `callUUID`.
    func placeCall(to user: String, callUUID: String, caller: String) throws
    /// Asks the provider to ring each of `calls` (a load's calls due at once).
    func placeCalls(_ calls: [PlacedCall], caller: String) throws
    /// What the provider did, where it can tell (the built-in one can; an `exec` command cannot).
    var actions: [ProviderAction] { get }
    /// The last lines the provider printed (its commands' or its service's output), for failures.
    var output: [String] { get }
}

extension ProviderDriver {
    /// One call after another, for a provider that knows no better.
    func placeCalls(_ calls: [PlacedCall], caller: String) throws {
        for call in calls { try placeCall(to: call.user, callUUID: call.callUUID, caller: caller) }
    }
}

/// A call a load asks the provider to place.
struct PlacedCall: Sendable {
    var user: String
    var callUUID: String
}

/// A provider handed to the threads that ask it about a load's calls: only an `http` service is
/// asked from several at once (a request each; its process looked at under a lock).
struct UncheckedProvider: @unchecked Sendable {
    let driver: any ProviderDriver
    init(_ driver: any ProviderDriver) { self.driver = driver }
}

/// A step the provider could not carry out: fails the scenario at that step, with what it printed.
struct StepFailure: Error {
    var expected: String
    var happened: String
    var output: [String]
}

extension ReferenceProvider: ProviderDriver {
    func unregister(user: String, token: String) { store.unregister(user: user, token: token) }

    func placeCall(to user: String, callUUID: String, caller: String) throws {
        _ = try placeCall(to: user, callUUID: callUUID, caller: caller) as [PushAnswer]
    }

    func placeCalls(_ calls: [PlacedCall], caller: String) throws {
        _ = try placeCalls(calls.map { ($0.user, $0.callUUID) }, caller: caller)
    }

    var output: [String] { [] }
}

/// The values every adapter's templates can use: the provider contract's (docs/architecture.md).
struct ContractValues {
    var url: String
    var environment: [String: String]
    /// A JWT the runner signs with the contract's key, so that a curl one-liner is a valid provider.
    var jwt: String
    var directory: String

    var placeholders: [Placeholder: String] {
        [
            .topic: environment["APNS_VOIP_TOPIC"] ?? "", .url: url, .ca: environment["APNS_CA_FILE"] ?? "",
            .jwt: jwt, .cert: environment["APNS_CERT_FILE"] ?? "", .certKey: environment["APNS_CERT_KEY_FILE"] ?? "",
            .dir: directory,
        ]
    }

    static func payload(callUUID: String, caller: String) -> String {
        #"{"aps":{},"callUUID":"\#(callUUID)","handle":"\#(caller)"}"#
    }
}

/// The `exec` adapter: one shell command per push, from a template (docs/scenario-language.md lists
/// its placeholders; write `'{payload}'` in single quotes: it is JSON). The contract's variables are
/// in its environment. A command keeps no state, and the runner keeps none for it (it would then
/// judge its own bookkeeping): a call runs the command once for every registration ever made for
/// the user, a repeated one again and a logged-out one still. A provider that forgets logged-out
/// tokens, ignores duplicates or drops 410s is a service (`http`). A command that exits non-zero
/// fails the step that ran it.
final class ExecProvider: ProviderDriver {
    let template: Template
    let contract: ContractValues
    let children: Children
    private var tokens: [(user: String, token: String)] = []
    let actions: [ProviderAction] = []
    private(set) var output: [String] = []

    init(template: Template, contract: ContractValues, children: Children) {
        self.template = template
        self.contract = contract
        self.children = children
    }

    /// Every registration, in order, repeated ones too: what the step handed over, not a store.
    func register(user: String, token: String, kind: TokenStore.Kind) { tokens.append((user, token)) }
    /// A command is not told: it has no state to change.
    func unregister(user: String, token: String) {}

    func placeCall(to user: String, callUUID: String, caller: String) throws {
        for entry in tokens where entry.user == user {
            var values = contract.placeholders
            values[.token] = entry.token
            values[.payload] = ContractValues.payload(callUUID: callUUID, caller: caller)
            values[.callId] = callUUID
            values[.caller] = caller
            values[.user] = user
            let command = template.filledForShell(values)
            let run = try ShellCommand.run(
                command, environment: contract.environment, timeout: 30, children: children)
            output = Array((output + run.output).suffix(ShellCommand.keptLines))
            if run.status != 0 {
                throw StepFailure(
                    expected: "the exec provider's command to succeed",
                    happened: "it exited with \(run.status): \(command)", output: run.output)
            }
        }
    }
}

/// The `http` adapter: a long-running provider service that the runner starts (`http:` command,
/// with the contract and PORT in its environment), waits for (`ready:` URL answering 200 within
/// `readyDeadline`), drives with request templates, and stops at the end.
final class HTTPServiceProvider: ProviderDriver {
    private var process: ChildProcess!
    private(set) var port: UInt16 = 0
    let service: HTTPService
    let actions: [ProviderAction] = []
    private let log: OutputFile
    /// How long the service may take to answer its ready URL.
    static let readyDeadline = 10.0

    var output: [String] { log.tail() }

    init(service: HTTPService, contract: ContractValues, children: Children) throws {
        self.service = service
        log = try OutputFile()
        // The port is free when chosen, and another process may take it before the service binds
        // it (seen once in CI: "Address already in use"): the service is started again on another.
        var attempt = 1
        while true {
            port = HTTPServiceProvider.freePort()
            do {
                try start(contract: contract, children: children)
                return
            } catch let failure as ScenarioError
                where attempt < 3 && failure.description.contains("Address already in use")
            {
                attempt += 1
                stop()
            }
        }
    }

    /// Starts the service on `port` and waits for its ready URL to answer 200.
    private func start(contract: ContractValues, children: Children) throws {
        var values = contract.placeholders
        values[.port] = String(port)
        let command = service.command.filledForShell(values)
        var environment = contract.environment
        environment["PORT"] = String(port)
        (process, marker) = try children.start(command, environment: environment, output: log.handle)
        let readyURL = service.ready.filled([.port: String(port)])
        let deadline = Date().addingTimeInterval(Self.readyDeadline)
        while true {
            let last = HTTPCall.perform(method: "GET", url: readyURL, body: nil, timeout: 1)
            if last.status == 200 { break }
            guard process.isRunning else {
                let tail = log.tail()
                throw ScenarioError(
                    "the http provider <\(command)> exited with \(process.status ?? -1) before \(readyURL) answered 200"
                        + (tail.isEmpty ? " (it printed nothing)" : "; it printed:\n" + tail.joined(separator: "\n")))
            }
            guard Date() < deadline else {
                stop()
                let tail = log.tail()
                throw ScenarioError(
                    "the http provider <\(command)> did not answer 200 at \(readyURL) within \(Int(Self.readyDeadline)) s (last: \(last.error ?? "status \(last.status)"))"
                        + (tail.isEmpty ? "" : "; it printed:\n" + tail.joined(separator: "\n")))
            }
            usleep(50_000)
        }
    }

    /// The service's process tree.
    private(set) var marker = ""

    /// Whether the service still runs, asked under a lock: a load's calls fail from several threads.
    private let processCheck = Mutex(())
    private var isRunning: Bool { processCheck.withLock { _ in process.isRunning } }

    /// The exit status of a service that stopped by itself (a crash after answering), or nil while it runs.
    var exitedWith: Int32? { process.status }

    /// Stops the service and whatever its command started: SIGTERM, then SIGKILL after 2 s.
    func stop() {
        ProcessTree.stop(marker: marker)
        _ = process?.wait(until: Date().addingTimeInterval(2))
    }

    deinit { stop() }

    private func send(_ name: String, _ template: RequestTemplate?, _ values: [Placeholder: String]) throws {
        // In a scenario the checker refuses a step whose template is missing; a provider file run
        // against the library may lack one, and then the provider cannot be told: the step fails.
        guard let template else {
            throw StepFailure(
                expected: "the http provider to be told of this step (its <\(name):> request template)",
                happened:
                    "the provider file has no <\(name):> template: the provider cannot be told, so it cannot act on it",
                output: [])
        }
        var values = values
        values[.port] = String(port)
        let path = template.path.filled(values)
        let body = template.body?.filled(values)
        let response = HTTPCall.perform(
            method: template.method, url: "http://127.0.0.1:\(port)\(path)", body: body, timeout: 30)
        guard response.status != 0, template.answers.allows(response.status) else {
            let answer =
                response.status == 0
                ? "no answer (\(response.error ?? "?"))"
                : "\(response.status) \(String(response.body.prefix(300)))"
            throw StepFailure(
                expected: "the http provider to answer \(template.answers) to \(template.method) \(path)",
                happened: "it answered \(answer)" + (isRunning ? "" : "; it is no longer running"),
                output: output)
        }
    }

    func register(user: String, token: String, kind: TokenStore.Kind) throws {
        try send("register", service.register, [.user: user, .token: token, .kind: kind.rawValue])
    }

    func unregister(user: String, token: String) throws {
        try send("unregister", service.unregister, [.user: user, .token: token])
    }

    func placeCall(to user: String, callUUID: String, caller: String) throws {
        try send("call", service.call, [.user: user, .callId: callUUID, .caller: caller])
    }

    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Socket.stream, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                _ = bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }
}

/// Why a scenario could not run.
struct ScenarioError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
