import APNs
import Foundation
import HTTP2Server
import MockAPNs
import Scenario
import World

/// `ringside record -- COMMAND…`: runs the mock around a provider command until it exits, and writes
/// what the mock saw as a scenario that passes when run again.
enum RecordCommand {
    /// The options, declared once: the table below and every read name them (a misspelt one does not compile).
    enum Option {
        static let out = OptionSpec.text("--out", "FILE", "The scenario to write (default recorded.ring).")
    }

    static let spec = CommandSpec(
        "record", abstract: "Run the mock around a provider command and write what it saw as a scenario.",
        operands: "-- COMMAND [ARGUMENT…]",
        about: """
            Starts a fake APNs (any well-formed token accepted), runs COMMAND with the provider contract
            (APNS_URL, APNS_CA_FILE, APNS_TOPIC, APNS_VOIP_TOPIC, APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID,
            …) in its environment until it exits, and writes a scenario that runs the same command and
            expects the same answers.
            """,
        options: [Option.out, OptionSpec.certs],
        exitCodes: "Exit codes: 0 recorded, 3 the mock could not start, 64 bad arguments.")

    static func run(_ raw: [String]) -> Int32 {
        guard let separator = raw.firstIndex(of: "--"), separator + 1 < raw.count else {
            Output.out(spec.help)
            return raw.contains("--help") || raw.contains("-h") ? ExitCode.success : ExitCode.usage
        }
        var arguments = Arguments(Array(raw[..<separator]), command: spec)
        let words = Array(raw[(separator + 1)...])
        // A scenario line holds no tab, newline or other control character.
        if let odd = words.first(where: { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) {
            Output.error(
                "error: cannot record <\(odd.debugDescription)>: a scenario's exec line cannot hold a tab, newline or control character"
            )
            return ExitCode.usage
        }
        let command = words.map(shellQuoted).joined(separator: " ")
        return runCommand {
            let out = try arguments.value(Option.out) ?? "recorded.ring"
            let certsOption = try arguments.value(OptionSpec.certs)
            try arguments.finish()
            let certs = try TestCredentials.required(certsOption)
            let world = SharedWorld()
            world.acceptsUnknownTokens = true
            var configuration = MockConfiguration(
                validation: ValidationSettings(), keys: try KeyStore.load(directory: certs))
            configuration.world = world
            let mock = MockAPNs(configuration: configuration)
            let seen = TranscriptBuffer()
            mock.addObserver(seen)
            var server = ServerConfiguration()
            server.port = 0
            server.tls = try TLSContext(
                certificateFile: certs + "/server.pem", keyFile: certs + "/server.key",
                trustedCAFile: certs + "/ca.pem",
                clientCertificates: .optional)
            let http2 = HTTP2Server(configuration: server, service: mock)
            try http2.start()
            defer { http2.stop() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            process.environment = ProcessInfo.processInfo.environment.merging(
                ProviderContract.environment(
                    url: "https://127.0.0.1:\(http2.port)", host: "127.0.0.1", port: http2.port, certs: certs)
            ) { $1 }
            try process.run()
            process.waitUntilExit()
            // Group the answers: one `expect apns` per status and reason, with its count.
            var groups: [String: (status: Int, reason: String?, count: Int)] = [:]
            var order: [String] = []
            for case .push(let record) in seen.kept {
                let status = record.status
                let reason = record.rejection?.reason.wire
                let key = "\(status) \(reason ?? "")"
                if groups[key] == nil { order.append(key) }
                groups[key, default: (status, reason, 0)].count += 1
            }
            var text = """
                scenario: \(scenarioQuoted("Recorded run of " + command))
                teaches: |
                  Recorded by `ringside record`: the provider command, and the answers the fake APNs gave it.
                world:
                  accept-unknown-tokens: true
                steps:
                  - exec: \(scenarioQuoted(templateEscaped(command)))

                """
            for key in order {
                let group = groups[key]!
                text += "  - expect apns: recorded\n    count: \(group.count)\n    status: \(group.status)\n"
                if let reason = group.reason { text += "    reason: \(reason)\n" }
            }
            try OutputFiles.write(text, to: out)
            Output.out(
                "recorded \(groups.values.reduce(0) { $0 + $1.count }) requests into \(out) (the command exited \(process.terminationStatus))"
            )
            return ExitCode.success
        }
    }
}

/// A word as `sh -c` reads it back: as it is when it is plain, else in single quotes.
func shellQuoted(_ word: String) -> String {
    let plain =
        !word.isEmpty
        && word.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_@%+=:,./-".unicodeScalars.contains($0))
        }
    return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// A value as a scenario reads it back: in double quotes, with `\\` and `\"` escaped, so that `#`
/// starts no comment and leading or trailing spaces stay.
func scenarioQuoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

/// Text as a template reads it back: braces doubled, so that nothing in it is a placeholder.
func templateEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "{", with: "{{").replacingOccurrences(of: "}", with: "}}")
}
