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
        let marker = UUID().uuidString
        let child = try ChildProcess(command: command, environment: environment, marker: marker, output: log.handle)
        guard child.wait(until: Date().addingTimeInterval(seconds)) else {
            ProcessTree.stop(marker: marker)
            _ = child.wait(until: Date().addingTimeInterval(2))
            throw StepFailure(
                expected: "the command to finish", happened: "it ran for \(Int(seconds)) s and was stopped: \(command)",
                output: log.tail())
        }
        return Run(status: child.status ?? -1, output: log.tail())
    }
}

/// A shell command started with posix_spawn. Foundation's `Process` on Linux learns of an exit
/// through a socket its child inherits, so it waits for every process the command left in the
/// background too; `waitpid` answers for the shell alone.
final class ChildProcess {
    let pid: pid_t
    private var exitStatus: Int32?

    /// Starts `/bin/sh -c command` with `environment` added to ours (and `ProcessTree.variable`
    /// set to `marker`), its standard output and error appended to `output`.
    init(command: String, environment: [String: String], marker: String, output: FileHandle) throws {
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        variables[ProcessTree.variable] = marker
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output.fileDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, output.fileDescriptor, 2)
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] =
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments + environment { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, nil, arguments, environment)
        guard result == 0 else { throw ScenarioError("cannot start /bin/sh: \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// The exit status once the shell has ended (128 + N when killed by signal N), else nil.
    var status: Int32? {
        if exitStatus == nil {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                let signal = raw & 0x7f
                exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
            }
        }
        return exitStatus
    }

    var isRunning: Bool { status == nil }

    /// Waits until the shell ends or `deadline` passes; true when it ended.
    func wait(until deadline: Date) -> Bool {
        while isRunning, Date() < deadline { usleep(2_000) }
        return !isRunning
    }
}
