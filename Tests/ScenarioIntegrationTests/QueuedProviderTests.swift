import Foundation
import Scenario
import TestSupport
import Testing

/// Providers as teams write them (issue 45, A): a service whose worker pushes from a job queue a
/// second after the request. A correct one passes the library's requirements; one whose queue
/// redelivers each call, or that ignores a logout behind the queue, fails — at the scenario's end,
/// naming the late push, when its line was judged before the push came.
@Suite(.serialized) struct QueuedProviderTests {
    static let requirements = [
        "phone/01-a-call-rings.ring", "tokens/04-410-forgets-token.ring", "tokens/10-duplicate-registration.ring",
        "tokens/13-logout-unregisters.ring",
    ]

    /// A provider file for Tests/providers/http_provider.py with `options`.
    static func providerFile(_ options: String, settles: String? = nil) throws -> String {
        let path = NSTemporaryDirectory() + "ringside-queued-\(UUID().uuidString).ring"
        try """
        provider:
          http: python3 \(AdapterTests.provider) \(options)
          register: POST /register {"user":"{user}","token":"{token}"}
          unregister: POST /unregister {"token":"{token}"}
          call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}
        \(settles.map { "  settles-within: \($0)\n" } ?? "")
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func run(_ options: String, settles: String? = nil, _ scenarios: [String] = requirements) throws
        -> CommandResult
    {
        let file = try providerFile(options, settles: settles)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try TestSupport.run(
            AdapterTests.binary,
            ["run", "--certs", Paths.certs, "--jobs", "2", "--provider-file", file]
                + scenarios.map { Paths.root + "/scenarios/" + $0 })
    }

    @Test("A correct service that pushes 1 s after each request passes: counts wait until it has settled")
    func queuedOneSecondPasses() throws {
        let result = try Self.run("--queue-delay=1")
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("4 passed, 0 failed"), "\(result.stdout)")
    }

    @Test("Negative control: told it settles at once, the same service fails its counts (0 of 0 matched)")
    func declaredTooShortFails() throws {
        let result = try Self.run("--queue-delay=1", settles: "0s", ["tokens/10-duplicate-registration.ring"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("0 of 0 requests matched"), "\(result.stdout)")
        #expect(result.stdout.contains("judged after waiting"), "\(result.stdout)")
    }

    @Test("A service that pushes 3 s late passes once it declares settles-within: 4s")
    func declaredLongerPasses() throws {
        let result = try Self.run("--queue-delay=3", settles: "4s", ["tokens/10-duplicate-registration.ring"])
        #expect(result.status == 0, "\(result.stdout)")
    }

    @Test("A queue that redelivers every call 1 s later fails outcome and count, naming the late push")
    func redeliveryFails() throws {
        let result = try Self.run("--queue-delay=1 --redelivers", ["phone/01-a-call-rings.ring"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("expected 1 status 200; happened:"), "\(result.stdout)")
        #expect(result.stdout.contains("2 of 2 requests matched"), "\(result.stdout)")
        #expect(result.stdout.contains("duplicate"), "\(result.stdout)")
    }

    @Test("A redelivery after the line was judged breaks it at the end: the late push is named by its apns-id")
    func lateRedeliveryNamed() throws {
        // 10's count is judged 1 s after the first push; the redelivery comes 1 s after that.
        let result = try Self.run("--queue-delay=1 --redelivers", ["tokens/10-duplicate-registration.ring"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(
            result.stdout.contains("it held at its line, but not once the provider had settled at the scenario's end"),
            "\(result.stdout)")
        #expect(result.stdout.contains("the push that came after the line was judged"), "\(result.stdout)")
        #expect(result.stdout.contains("apns-id "), "\(result.stdout)")
    }

    @Test("A service that ignores unregister behind a 1 s queue fails count: 0 after the logout")
    func ignoredLogoutBehindAQueueFails() throws {
        let result = try Self.run("--queue-delay=1 --ignores-unregister", ["tokens/13-logout-unregisters.ring"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("13-logout-unregisters.ring:19:5"), "\(result.stdout)")
        #expect(result.stdout.contains("expected 0 to alice"), "\(result.stdout)")
    }
}

/// What counts as evidence (issue 45, B): a refusal of the impostor is the right outcome, however
/// the client says it — curl's exit 60, aioapns closing the handshake without an alert — while a
/// GET or cleartext to the TLS port is no sign of life (Tests/false-greens/18–20 are the broken twins).
@Suite struct RefusalIsEvidenceTests {
    static func runAgainst(_ providerFile: String, _ scenario: String) throws -> CommandResult {
        let file = NSTemporaryDirectory() + "ringside-refusal-\(UUID().uuidString).ring"
        try providerFile.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try run(
            AdapterTests.binary,
            ["run", "--certs", Paths.certs, "--provider-file", file, Paths.root + "/scenarios/" + scenario])
    }

    @Test("A curl one-liner that refuses the impostor (exit 60) passes requirement 23, without `|| true`")
    func curlRefusalPasses() throws {
        let curl =
            "curl -s -o /dev/null --http2 --max-time 5 --cacert {ca} -H \"authorization: bearer {jwt}\" -H \"apns-topic: {topic}\" -H \"apns-push-type: voip\" -H \"apns-expiration: 0\" --data-binary '{payload}' {url}/3/device/{token}"
        let result = try Self.runAgainst(
            "provider:\n  exec: \(curl)\n", "connections/23-impostor-server.ring")
        #expect(result.status == 0, "\(result.stdout)")
    }

    @Test("An aioapns service, which closes the impostor's handshake without an alert, passes requirement 23")
    func aioapnsRefusalPasses() throws {
        let service = """
            provider:
              http: python3 \(Paths.root)/examples/python-service/service.py
              register: POST /register {"user":"{user}","token":"{token}","kind":"{kind}"}
              unregister: POST /unregister {"user":"{user}","token":"{token}"}
              call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}

            """
        let result = try Self.runAgainst(service, "connections/23-impostor-server.ring")
        #expect(result.status == 0, "\(result.stdout)")
    }
}

/// A provider that never reaches the fake APNs (a client with Apple's host built in) stops the
/// library run after a few scenarios, saying why (issue 45, D14), instead of failing each slowly.
@Suite struct NeverReachedTests {
    @Test("A provider pointed elsewhere stops the run with exit 3, asking whether it reads APNS_URL")
    func neverReachedStops() throws {
        let file = NSTemporaryDirectory() + "ringside-elsewhere-\(UUID().uuidString).ring"
        try
            "provider:\n  exec: curl -s -o /dev/null --http2 --max-time 2 https://127.0.0.1:9/3/device/{token}; echo pushed to api.push.apple.com\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try run(
            AdapterTests.binary,
            ["run", "--certs", Paths.certs, "--jobs", "1", "--provider-file", file, Paths.root + "/scenarios"])
        #expect(result.status == 3, "\(result.stdout)")
        #expect(result.stderr.contains("the provider never reached the fake APNs"), "\(result.stderr)")
        #expect(result.stderr.contains("APNS_URL"), "\(result.stderr)")
        #expect(result.stderr.contains("pushed to api.push.apple.com"), "its last output is quoted")
        let judged = result.stdout.split(separator: "\n").filter { $0.hasPrefix("✘") || $0.hasPrefix("✔") }
        #expect(judged.count < 10, "the run stopped early: \(judged.count) scenarios judged")
    }
}

/// An exec provider's daemon that left the command's process group and cleared its environment
/// (`setsid env -i … &`) is the provider's: `ringside run` adopts orphans (a subreaper) and waits
/// for them (Tests/false-greens/26). Run through the binary: the test process adopts none.
@Suite struct AdoptedDaemonTests {
    static let path = Paths.root + "/Tests/false-greens/26-a-daemon-that-left-its-group-pushes-again.ring"

    @Test("The daemon's second push is awaited and fails count: 1")
    func daemonIsAwaited() throws {
        let result = try run(AdapterTests.binary, ["run", "--certs", Paths.certs, Self.path])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("2 of 2 requests matched"), "\(result.stdout)")
    }

    @Test("Its twin without the daemon passes")
    func withoutTheDaemonPasses() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        let twin = NSTemporaryDirectory() + "ringside-no-daemon-\(UUID().uuidString).ring"
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("  exec: ") })
        let firstPush = line.components(separatedBy: "; setsid").first!
        try text.replacingOccurrences(of: String(line), with: firstPush).write(
            toFile: twin, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: twin) }
        let result = try run(AdapterTests.binary, ["run", "--certs", Paths.certs, twin])
        #expect(result.status == 0, "\(result.stdout)")
    }
}

/// The provider's clock follows the scenario's (issue 45, C13): a Python service whose JWT comes
/// from `time.time()` renews it after `advance: 2h` as it would after two real hours.
@Suite struct ProviderClockTests {
    static func run(_ command: String) throws -> CommandResult {
        let file = NSTemporaryDirectory() + "ringside-clock-\(UUID().uuidString).ring"
        try """
        provider:
          http: \(command)
          register: POST /register {"user":"{user}","token":"{token}"}
          unregister: POST /unregister {"token":"{token}"}
          call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}

        """.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try TestSupport.run(
            AdapterTests.binary,
            [
                "run", "--certs", Paths.certs, "--provider-file", file,
                Paths.root + "/scenarios/tokens/12-old-token-dies-later.ring",
            ])
    }

    @Test("A service whose JWT comes from its own clock renews it after advance: 2h, and passes")
    func clockFollowsTheScenario() throws {
        let result = try Self.run("python3 \(AdapterTests.provider)")
        #expect(result.status == 0, "\(result.stdout)")
    }

    @Test("Negative control: the same service with its clock left real keeps its JWT and fails")
    func realClockFails() throws {
        let result = try Self.run("env -u LD_PRELOAD python3 \(AdapterTests.provider)")
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("the provider kept its JWT"), "\(result.stdout)")
    }
}
