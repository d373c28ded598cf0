import Foundation
import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// Scenarios an adversary wrote that passed although they should fail, or left processes behind.
@Suite struct AdversaryRegressionTests {
    /// The curl one-liner provider of the coverage pairs.
    static let curl = VerdictPairs.curl()

    static func run(_ body: String) -> ScenarioResult { runScenario(body, transport: .loopback) }

    /// The built-in provider's checks fail at once when nothing can change; a command an `exec` step
    /// put in the background with a cleared environment cannot be found by it, so after an `exec`
    /// step a check waits out its window (the early failure was a false red here).
    @Test("A push from an exec step's background command with a cleared environment is waited for")
    func backgroundWithClearedEnvironment() {
        let push = VerdictPairs.curl(token: VerdictPairs.anyToken, payload: "\"{}\"")
        let result = Self.run(
            """
            world:
              accept-unknown-tokens: true
            steps:
              - exec: env -i PATH="$PATH" sh -c 'sleep 0.5; \(push)' >/dev/null 2>&1 &
              - expect apns: the pushed request
                within: 3s

            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.passed, "\(result.expectations.map(\.happened))")
    }

    @Test("count: 0 with within waits the whole window: a push 1 s late fails it")
    func lateCount() {
        let result = Self.run(
            """
            world:
              accept-unknown-tokens: true
            steps:
              - exec: (sleep 1; \(VerdictPairs.curl(token: VerdictPairs.anyToken, payload: "'{}'"))) >/dev/null 2>&1 &
              - expect apns: nothing
                count: 0
                within: 3s

            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(!result.passed)
    }

    @Test("A new call after a 503 is not a retry, and separate connections are not a reconnect")
    func notRetriesNorReconnects() {
        let result = Self.run(
            """
            phones:
              - name: alice
            provider:
              exec: \(Self.curl)
            steps:
              - register: alice
              - fault: ServiceUnavailable
              - call: alice
                from: bob
              - wait: 200ms
              - call: alice
                from: carol
              - expect provider: back-off
                retried: 1
              - expect provider: connections
                reconnected: true

            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.expectations.map(\.passed) == [false, false], "\(result.expectations.map(\.happened))")
    }

    /// The runner once kept a token store for exec providers and judged the provider on it (issue
    /// 26): now a command keeps no state, and the logged-out registration is still handed over.
    @Test("An exec command is handed every registration, a logged-out one too: the runner keeps no store for it")
    func unregisterAlert() {
        let result = Self.run(
            """
            phones:
              - name: alice
            provider:
              exec: echo pushed {token}; false
            steps:
              - register: alice
                token: alert
              - unregister: alice
              - call: alice
                from: bob

            """)
        #expect(!result.passed)
        #expect(result.expectations.first?.happened.contains("it exited with 1") == true)
    }

    @Test("Processes a scenario left in the background, or an http service that clears its environment, are stopped")
    func noLeftovers() throws {
        let service = NSTemporaryDirectory() + "ringside-plain-\(UUID().uuidString).py"
        try """
        import http.server, sys
        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def do_GET(self): self.send_response(200); self.end_headers()
            def do_POST(self): self.send_response(200); self.end_headers()
        http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
        """.write(toFile: service, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: service) }
        let marker = "31\(Int.random(in: 100_000...999_999))"
        let result = Self.run(
            """
            phones:
              - name: alice
            provider:
              http: env -i /usr/bin/python3 \(service) {port}
              register: POST /register
            steps:
              - exec: sleep \(marker) &
              - register: alice

            """)
        #expect(result.passed, "\(result.error ?? "") \(result.expectations.map(\.happened))")
        let left = try TestSupport.run("/usr/bin/pgrep", ["-f", "sleep \(marker)|\(service)"])
        #expect(left.stdout.isEmpty, "left running: \(left.stdout)")
    }

    @Test("Replaying a GOAWAY or an untrusted certificate arms it again: the recording's own run has no difference")
    func replayConnectionFaults() throws {
        let scenario = Paths.root + "/scenarios/connections/08-goaway.ring"
        let directory = NSTemporaryDirectory() + "ringside-replay-\(UUID().uuidString)"
        let binary = Paths.ringside
        #expect(
            try TestSupport.run(binary, ["run", "--certs", Paths.certs, "--transcript", directory, scenario]).status
                == 0)
        let replay = try TestSupport.run(
            binary, ["replay", "--certs", Paths.certs, directory + "/08-goaway.jsonl", "--scenario", scenario])
        #expect(replay.status == 0, "\(replay.stdout)")
    }

    @Test("Two calls with the same payload are two pushes: neither a retry nor a reconnect")
    func samePayloadTwoCalls() {
        let result = Self.run(
            """
            phones:
              - name: alice
            provider:
              exec: \(VerdictPairs.curl(payload: "'{{\"aps\":{{}}}}'"))
            steps:
              - register: alice
              - fault: ServiceUnavailable
              - call: alice
                from: bob
              - wait: 300ms
              - call: alice
                from: bob
              - expect provider: back-off
                retried: 1
              - expect provider: connections
                reconnected: true

            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.expectations.map(\.passed) == [false, false], "\(result.expectations.map(\.happened))")
    }

    @Test("A new JWT that APNs refuses is no refresh")
    func refusedNewToken() {
        let flag = NSTemporaryDirectory() + "ringside-jwt-\(UUID().uuidString)"
        let provider = Self.curl.replacingOccurrences(of: "bearer {jwt}", with: "bearer $J")
        let result = Self.run(
            """
            phones:
              - name: alice
            provider:
              exec: if [ -f \(flag) ]; then J=garbage; else J={jwt}; touch \(flag); fi; \(provider)
            steps:
              - register: alice
              - fault: ExpiredProviderToken
              - call: alice
                from: bob
              - call: alice
                from: bob
              - expect provider: jwt
                refreshed-jwt: true

            """)
        try? FileManager.default.removeItem(atPath: flag)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.expectations.map(\.passed) == [false], "\(result.expectations.map(\.happened))")
    }

    @Test("Replay compares the payload and whether a JWT was sent, and names an answer that changed")
    func replayComparesMore() throws {
        let binary = Paths.ringside
        let directory = NSTemporaryDirectory() + "ringside-replay-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func scenario(_ name: String, _ provider: String) throws -> String {
            let path = directory + "/\(name).ring"
            try """
            scenario: payload recorded
            phones:
              - name: alice
            provider:
              exec: \(provider)
            steps:
              - register: alice
              - call: alice
                from: bob
              - expect phone: alice
                outcome: rang

            """.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let recorded = try scenario("recorded", Self.curl)
        #expect(
            try TestSupport.run(binary, ["run", "--certs", Paths.certs, "--transcript", directory, recorded]).status
                == 0)
        let transcript = directory + "/recorded.jsonl"
        let same = try TestSupport.run(
            binary, ["replay", "--certs", Paths.certs, transcript, "--scenario", recorded])
        #expect(same.stdout.contains("no difference"), "\(same.stdout)")
        let variants = [
            (
                VerdictPairs.curl(payload: "'{{\"aps\":{{\"alert\":\"spam\"}}}}'"),
                "body was <"
            ),
            (
                Self.curl.replacingOccurrences(of: "bearer {jwt}", with: "bearer not.a.jwt"),
                "answer was <200>, now <403 InvalidProviderToken>"
            ),
        ]
        for (index, (provider, difference)) in variants.enumerated() {
            let changed = try scenario("variant\(index)", provider)
            let replay = try TestSupport.run(
                binary, ["replay", "--certs", Paths.certs, transcript, "--scenario", changed])
            #expect(replay.status == 1)
            #expect(replay.stdout.contains(difference), "\(replay.stdout)")
        }
    }

    @Test("A daemon that leaves its session and clears its environment is stopped when `run` ends")
    func escapedDaemon() throws {
        let marker = "32\(Int.random(in: 100_000...999_999))"
        let path = NSTemporaryDirectory() + "ringside-daemon-\(UUID().uuidString).ring"
        try """
        scenario: a daemon
        steps:
          - exec: setsid env -i /bin/sleep \(marker) >/dev/null 2>&1 < /dev/null &
          - advance: 1s

        """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try TestSupport.run(
            Paths.ringside, ["run", "--certs", Paths.certs, path])
        #expect(result.status == 0, "\(result.stdout)")
        let left = try TestSupport.run("/usr/bin/pgrep", ["-f", "sleep \(marker)"])
        #expect(left.stdout.isEmpty, "left running: \(left.stdout)")
    }

    @Test("connections-at-most counts connections dropped before the TLS handshake")
    func connectionsBeforeHandshake() {
        let result = Self.run(
            """
            phones:
              - name: alice
            provider:
              exec: bash -c 'for i in 1 2 3; do exec 3<>/dev/tcp/127.0.0.1/$APNS_PORT; exec 3>&-; done'; \(Self.curl)
            steps:
              - register: alice
              - call: alice
              - expect phone: alice
                outcome: rang
              - expect provider: one connection
                connections-at-most: 1

            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(!result.passed)
        #expect(result.expectations.last?.happened.contains("3 refused in the handshake") == true)
    }

    @Test("Replay treats an expiration of 'now' (aioapns's time_to_live=0) like 0: a second later, no difference")
    func replayExpirationNow() throws {
        let directory = NSTemporaryDirectory() + "ringside-replay-now-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let scenario = directory + "/now.ring"
        let curl = VerdictPairs.curl(extra: #" -H "apns-expiration: $(date +%s)""#)
            .replacingOccurrences(of: #" -H "apns-expiration: 0""#, with: "")
        try """
        scenario: expiration now
        phones:
          - name: alice
        provider:
          exec: \(curl)
        steps:
          - register: alice
          - call: alice
          - expect apns: accepted
            status: 200

        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let recorded = try TestSupport.run(
            Paths.ringside, ["run", "--certs", Paths.certs, "--transcript", directory, scenario])
        #expect(recorded.status == 0, "\(recorded.stdout)")
        sleep(2)
        let replayed = try TestSupport.run(
            Paths.ringside,
            ["replay", "--certs", Paths.certs, directory + "/now.jsonl", "--scenario", scenario])
        #expect(replayed.status == 0, "\(replayed.stdout)")
        #expect(replayed.stdout.contains("no difference"), "\(replayed.stdout)")
    }

    @Test(
        "An answer slower than the reference's timeout: it sends the call again, CallKit refuses the resend as a duplicate, and the call rang once"
    )
    func slowAnswerRangOnce() {
        let result = Self.run(
            """
            phones:
              - name: alice
            steps:
              - register: alice
              - fault: delay
                seconds: 7s
              - call: alice
              - expect phone: alice
                outcome: rang
                within: 15s

            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
        #expect(result.passed, "\(result.expectations.map(\.happened))")
        #expect(result.expectations.first?.happened.contains("refused as a duplicate") == true)
    }

    /// `$RINGSIDE` named the running binary only when its file was called `ringside`: a renamed copy
    /// failed every scenario whose provider signs its own JWT (`"$RINGSIDE" token …`).
    @Test("A renamed copy of the binary still gives scenarios $RINGSIDE")
    func renamedBinary() throws {
        let folder = NSTemporaryDirectory() + "ringside-renamed-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = folder + "/rsbin"
        try FileManager.default.copyItem(atPath: Paths.ringside, toPath: copy)
        let result = try TestSupport.run(
            copy, ["run", "--certs", Paths.certs, Paths.scenario("auth/49-too-many-token-updates.ring")],
            directory: Paths.root)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    }
}
