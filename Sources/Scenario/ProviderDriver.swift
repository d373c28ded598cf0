import APNs
import Foundation
import Provider

/// A provider under test as the runner drives it (DESIGN.md, "The provider contract").
protocol ProviderDriver: AnyObject {
    func register(user: String, token: String, kind: TokenStore.Kind)
    func unregister(token: String)
    /// Places a call to `user`; returns the apns-ids the provider learned (may be empty).
    func placeCall(to user: String, callUUID: String, caller: String) throws -> [String]
    /// What the provider did, where it can tell (the built-in one can; an `exec` command cannot).
    var actions: [ProviderAction] { get }
}

extension ReferenceProvider: ProviderDriver {
    func unregister(token: String) { store.unregister(token: token) }

    func placeCall(to user: String, callUUID: String, caller: String) throws -> [String] {
        try (placeCall(to: user, callUUID: callUUID, caller: caller) as [PushAnswer]).compactMap(\.apnsId)
    }
}

/// The `exec` adapter: one shell command per push, from a template with `{token}`, `{payload}`,
/// `{callId}`, `{caller}`, `{topic}`, `{url}`, `{ca}` and `{jwt}` (a JWT the runner signs with the
/// contract's key, so that a curl one-liner is a valid provider), replaced as they are (write
/// `'{payload}'` in single quotes: it is JSON). The contract's variables are in its environment. It
/// keeps every token it was given: a one-liner knows nothing of 410s.
final class ExecProvider: ProviderDriver {
    let template: String
    let environment: [String: String]
    let jwt: String
    private var tokens: [(user: String, token: String)] = []
    let actions: [ProviderAction] = []

    init(template: String, environment: [String: String], jwt: String) {
        self.template = template
        self.environment = environment
        self.jwt = jwt
    }

    func register(user: String, token: String, kind: TokenStore.Kind) { tokens.append((user, token)) }
    func unregister(token: String) { tokens.removeAll { $0.token == token } }

    func placeCall(to user: String, callUUID: String, caller: String) throws -> [String] {
        for entry in tokens where entry.user == user {
            let payload = #"{"aps":{},"callUUID":"\#(callUUID)","handle":"\#(caller)"}"#
            let values = [
                "{token}": entry.token, "{payload}": payload, "{callId}": callUUID, "{caller}": caller,
                "{topic}": (environment["APNS_TOPIC"] ?? "") + ".voip", "{url}": environment["APNS_URL"] ?? "",
                "{ca}": environment["APNS_CA_FILE"] ?? "", "{jwt}": jwt,
            ]
            var command = template
            for (placeholder, value) in values {
                command = command.replacingOccurrences(of: placeholder, with: value)
            }
            try ShellCommand.run(command, environment: environment, timeout: 30, what: "the exec provider")
        }
        return []
    }

}

/// The `http` adapter: a long-running provider service that the runner starts (`http:` command,
/// with the contract and PORT in its environment), waits for (`ready:` URL), drives with request
/// templates (`register:`, `unregister:`, `call:` — "METHOD /path {json}", placeholders `{user}`,
/// `{token}`, `{callId}`, `{caller}`, `{port}`), and stops — using libcurl.
final class HTTPServiceProvider: ProviderDriver {
    let process = Process()
    let port: UInt16
    let templates: [String: String]
    let actions: [ProviderAction] = []

    init(command: String, ready: String?, templates: [String: String], environment: [String: String]) throws {
        port = HTTPServiceProvider.freePort()
        self.templates = templates
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec " + command]
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        variables["PORT"] = String(port)
        process.environment = variables
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let readyURL = (ready ?? "http://127.0.0.1:{port}/health").replacingOccurrences(
            of: "{port}", with: String(port))
        let deadline = Date().addingTimeInterval(10)
        while HTTPCall.perform(method: "GET", url: readyURL, body: nil, timeout: 1).status != 200 {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw ScenarioError("the http provider did not answer 200 at \(readyURL) within 10 s")
            }
            usleep(50_000)
        }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    private func send(_ name: String, _ values: [String: String]) throws {
        guard var template = templates[name] else { return }
        for (key, value) in values { template = template.replacingOccurrences(of: "{\(key)}", with: value) }
        template = template.replacingOccurrences(of: "{port}", with: String(port))
        let parts = template.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count >= 2 else {
            throw ScenarioError("the \(name) template is not `METHOD /path [body]`: <\(template)>")
        }
        let response = HTTPCall.perform(
            method: parts[0], url: "http://127.0.0.1:\(port)\(parts[1])", body: parts.count > 2 ? parts[2] : nil,
            timeout: 30)
        guard (200..<300).contains(response.status) else {
            throw ScenarioError(
                "the http provider answered \(response.status) to \(parts[0]) \(parts[1]): \(response.error ?? response.body)"
            )
        }
    }

    func register(user: String, token: String, kind: TokenStore.Kind) {
        try? send("register", ["user": user, "token": token, "kind": kind.rawValue])
    }

    func unregister(token: String) { try? send("unregister", ["token": token]) }

    func placeCall(to user: String, callUUID: String, caller: String) throws -> [String] {
        try send("call", ["user": user, "callId": callUUID, "caller": caller])
        return []
    }

    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
