import Foundation
import ScenarioLanguage

/// The provider contract (DESIGN.md, "The provider contract"): what a provider under test is told
/// about the mock, as environment variables. The credentials are the test ones in `certs-test/`.
public enum ProviderContract {
    public static let keyId = "RINGKEY001"
    public static let teamId = "RINGTEAM01"
    /// The test app's bundle ID, which is also its topic (VoIP pushes add `.voip`).
    public static let topic = ScenarioPlan.testBundleId

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

/// A child's standard output and error, kept in a temporary file (a pipe nobody reads would fill
/// and block the child); its last lines are what failures show.
final class OutputFile {
    let path: String
    let handle: FileHandle

    init() throws {
        path = NSTemporaryDirectory() + "/ringside-output-\(UUID().uuidString).log"
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw ScenarioError("cannot create \(path) for a provider's output") }
        self.handle = handle
    }

    /// The last lines written, from at most the last 8 KiB.
    func tail(lines: Int = ShellCommand.keptLines) -> [String] {
        guard let reader = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? reader.close() }
        let size = (try? reader.seekToEnd()) ?? 0
        try? reader.seek(toOffset: size > 8192 ? size - 8192 : 0)
        let data = (try? reader.readToEnd()) ?? Data()
        let text = String(decoding: data, as: UTF8.self)
        return Array(text.split(separator: "\n", omittingEmptySubsequences: true).suffix(lines).map(String.init))
    }

    deinit {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A shell command run to its end with extra environment; one that hangs is stopped and throws,
/// so that it cannot hang the suite.
enum ShellCommand {
    /// How many lines of a command's output a failure shows.
    static let keptLines = 20

    struct Run {
        var status: Int32
        /// The last lines of its standard output and error.
        var output: [String]
    }

    static func run(_ command: String, environment: [String: String], timeout seconds: Double) throws -> Run {
        let log = try OutputFile()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let marker = UUID().uuidString
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.merging([
            ProcessTree.variable: marker
        ]) { $1 }
        process.standardOutput = log.handle
        process.standardError = log.handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(2_000) }
        if process.isRunning {
            ProcessTree.stop(marker: marker)
            process.waitUntilExit()
            throw StepFailure(
                expected: "the command to finish", happened: "it ran for \(Int(seconds)) s and was stopped: \(command)",
                output: log.tail())
        }
        return Run(status: process.terminationStatus, output: log.tail())
    }
}
