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
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        }
        return []
    }

}
