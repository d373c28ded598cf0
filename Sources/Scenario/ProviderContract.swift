import Foundation

/// The provider contract (DESIGN.md, "The provider contract"): what a provider under test is told
/// about the mock, as environment variables. The credentials are the test ones in `certs-test/`.
public enum ProviderContract {
    public static let keyId = "RINGKEY001"
    public static let teamId = "RINGTEAM01"
    /// The test app's bundle ID, which is also its topic (VoIP pushes add `.voip`).
    public static let topic = "com.ringside.testapp"

    /// The variables in the order `ringside serve` prints them.
    public static func variables(url: String, host: String, port: UInt16, certs: String, certificate: String = "voip")
        -> [(name: String, value: String)]
    {
        [
            ("APNS_URL", url), ("APNS_HOST", host), ("APNS_PORT", String(port)),
            ("APNS_CA_FILE", certs + "/ca.pem"), ("APNS_TOPIC", topic),
            ("APNS_KEY_FILE", certs + "/AuthKey_\(keyId).p8"), ("APNS_KEY_ID", keyId), ("APNS_TEAM_ID", teamId),
            ("APNS_CERT_FILE", certs + "/client-\(certificate).pem"),
            ("APNS_CERT_KEY_FILE", certs + "/client-\(certificate).key"),
        ]
    }

    /// The variables as an environment to merge into a child process's.
    public static func environment(url: String, host: String, port: UInt16, certs: String, certificate: String = "voip")
        -> [String: String]
    {
        Dictionary(
            uniqueKeysWithValues: variables(url: url, host: host, port: port, certs: certs, certificate: certificate)
                .map { ($0.name, $0.value) })
    }
}

/// A shell command run to its end with extra environment and its output discarded; one that hangs
/// is stopped and throws, so that it cannot hang the suite.
enum ShellCommand {
    static func run(_ command: String, environment: [String: String], timeout seconds: Double, what: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning {
            process.terminate()
            throw ScenarioError("\(what) did not finish within \(Int(seconds)) s and was stopped")
        }
    }
}
