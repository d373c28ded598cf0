import Foundation
import TestSupport
import Testing

/// The `exec` and `http` adapters run what they say: a provider that gets it wrong fails at the
/// scenario's lines, one that cannot start stops the run (exit 3) with its own words.
@Suite struct AdapterTests {
    static let binary = Paths.ringside
    static let provider = Paths.root + "/Tests/providers/http_provider.py"

    /// Scenario 04 with an `http` provider block after its steps (top-level keys may come in any
    /// order), so that its lines stay where they are.
    static func scenario04(withProvider command: String) throws -> String {
        try TrustedVerdictTests.bundled("04-410-forgets-token.ring", provider: command)
    }

    @Test("An http provider that keeps pushing after a 410 fails scenario 04 at its lines; the correct one passes")
    func httpProviderAfter410() throws {
        let correct = try Self.scenario04(withProvider: "python3 \(Self.provider)")
        defer { try? FileManager.default.removeItem(atPath: correct) }
        let passing = try run(Self.binary, ["run", "--certs", Paths.certs, correct])
        #expect(passing.status == 0, "\(passing.stdout)")

        let broken = try Self.scenario04(withProvider: "python3 \(Self.provider) --keeps-pushing-after-410")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let failing = try run(Self.binary, ["run", "--certs", Paths.certs, broken])
        #expect(failing.status == 1)
        #expect(failing.stdout.contains(":14:5"), "\(failing.stdout)")
        #expect(failing.stdout.contains("expected 1 status 410 Unregistered; happened: 2 of 2 requests matched"))
        #expect(failing.stdout.contains(":18:5"))
        #expect(failing.stdout.contains("1 push after a refusal"))
    }

    @Test("An http provider whose command does not exist stops the run with exit 3 and the shell's words")
    func httpProviderMissing() throws {
        let path = try Self.scenario04(withProvider: "/nonexistent/provider-service --port {port}")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try run(Self.binary, ["run", "--certs", Paths.certs, path])
        #expect(result.status == 3, "\(result.stdout)")
        #expect(result.stdout.contains("exited with 127 before"), "\(result.stdout)")
        #expect(result.stdout.contains("/nonexistent/provider-service: not found"), "\(result.stdout)")
    }

    @Test("An http provider that never gets ready stops the run with exit 3 and what it printed")
    func httpProviderNeverReady() throws {
        let path = try Self.scenario04(withProvider: "echo warming up; sleep 60")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try run(Self.binary, ["run", "--certs", Paths.certs, path])
        #expect(result.status == 3, "\(result.stdout)")
        #expect(result.stdout.contains("did not answer 200"), "\(result.stdout)")
        #expect(result.stdout.contains("warming up"), "\(result.stdout)")
    }

    static func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "ringside-adapter-\(UUID().uuidString).ring"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("A failing `exec:` step fails the scenario at its line with the command and its output")
    func execStepFails() throws {
        let path = try Self.write(
            """
            scenario: A step that fails
            steps:
              - exec: echo no route to host >&2; exit 3
              - advance: 1s

            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try run(Self.binary, ["run", "--certs", Paths.certs, path])
        #expect(result.status == 1)
        #expect(result.stdout.contains(":3:5"), "\(result.stdout)")
        #expect(result.stdout.contains("it exited with 3: echo no route to host >&2; exit 3"))
        #expect(result.stdout.contains("| no route to host"))
    }

    @Test("An exec provider whose command fails fails the call's step, with its stderr")
    func execProviderFails() throws {
        let path = try Self.write(
            """
            scenario: A provider that cannot reach APNs
            phones:
              - name: alice
            provider:
              exec: curl -sS --max-time 2 https://127.0.0.1:1/3/device/{token}
            steps:
              - register: alice
              - call: alice
              - expect phone: alice
                outcome: rang

            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try run(Self.binary, ["run", "--certs", Paths.certs, path])
        #expect(result.status == 1)
        #expect(result.stdout.contains(":8:5"), "\(result.stdout)")
        #expect(result.stdout.contains("expected the exec provider's command to succeed; happened: it exited with 7"))
        #expect(result.stdout.contains("| curl: (7)"), "\(result.stdout)")
        #expect(result.stdout.contains(":9:5"))
        #expect(result.stdout.contains("no push reached APNs for this phone"))
    }
}
