import Foundation
import Scenario
import ScenarioLanguage
import TestSupport
import Testing

/// The second adversary of issue 9: scenarios that passed although they should fail, words `check`
/// let through that pointed nowhere, and replays that differed from their own recording.
@Suite struct TrustedVerdictTests {
    static let provider = AdapterTests.provider

    /// A bundled scenario with an `http` provider block after its steps, so that its lines stay.
    static func bundled(_ name: String, provider command: String) throws -> String {
        let text = try String(contentsOfFile: Paths.scenario(name), encoding: .utf8)
        let path = NSTemporaryDirectory() + "ringside-\(UUID().uuidString)-\(name)"
        try
            (text + """
                provider:
                  http: \(command)
                  register: POST /register {"user":"{user}","token":"{token}"}
                  unregister: POST /unregister {"token":"{token}"}
                  call: POST /call {"user":"{user}","callId":"{callId}","caller":"{caller}"}

                """).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("A service that queues its pushes is waited for: ignoring unregister fails scenario 13 at its line")
    func queuedPushesAreSeen() throws {
        let correct = try Self.bundled(
            "13-logout-unregisters.ring", provider: "python3 \(Self.provider) --queues-pushes")
        let passing = try run(AdapterTests.binary, ["run", "--certs", Paths.certs, correct])
        #expect(passing.status == 0, "\(passing.stdout)")
        let broken = try Self.bundled(
            "13-logout-unregisters.ring", provider: "python3 \(Self.provider) --queues-pushes --ignores-unregister")
        let failing = try run(AdapterTests.binary, ["run", "--certs", Paths.certs, broken])
        #expect(failing.status == 1, "\(failing.stdout)")
        #expect(failing.stdout.contains("13-logout-unregisters.ring:19:5"), "\(failing.stdout)")
        #expect(
            failing.stdout.contains("expected 0 to alice; happened: 1 of 2 requests matched: 200"), "\(failing.stdout)")
    }

    @Test("An http service that dies during the scenario fails it at the provider's line")
    func serviceThatDies() throws {
        let path = try Self.bundled("14-offline-briefly.ring", provider: "python3 \(Self.provider) --exits-after-call")
        let result = try run(AdapterTests.binary, ["run", "--certs", Paths.certs, path])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("it exited with 1 during the scenario"), "\(result.stdout)")
    }

    @Test("A header sent twice is judged by its last value, as the reference says")
    func repeatedHeader() {
        let curl = VerdictPairs.curl().replacingOccurrences(
            of: "-H \"apns-push-type: voip\"", with: "-H \"apns-push-type: voip\" -H \"x-rep: one\" -H \"x-rep: two\"")
        #expect(curl.contains("x-rep"))
        for (value, passes) in [("two", true), ("one", false)] {
            let result = AdversaryRegressionTests.run(
                "phones:\n  - name: alice\nprovider:\n  exec: \(curl)\nsteps:\n  - register: alice\n  - call: alice\n  - expect apns: header\n    header: \"x-rep: \(value)\"\n"
            )
            #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.detail))")
            #expect(result.passed == passes, "x-rep: \(value)")
        }
    }

    @Test("Every bundled scenario replays its own recording with no difference")
    func everyScenarioReplaysItself() throws {
        let folder = NSTemporaryDirectory() + "ringside-replays-\(UUID().uuidString)"
        let recorded = try run(
            AdapterTests.binary, ["run", "--jobs", "2", "--certs", Paths.certs, "--transcript", folder, "scenarios"],
            directory: Paths.root)
        #expect(recorded.status == 0, "\(recorded.stdout)")
        let names = Paths.bundled
        #expect(names.count >= 20)
        for name in names.sorted() {
            let transcript =
                "\(folder)/\(((name as NSString).lastPathComponent as NSString).deletingPathExtension).jsonl"
            let replay = try run(
                AdapterTests.binary,
                ["replay", "--certs", Paths.certs, transcript, "--scenario", "scenarios/\(name)"], directory: Paths.root
            )
            #expect(replay.status == 0, "\(name): \(replay.stdout)")
            #expect(replay.stdout.contains("no difference"), "\(name): \(replay.stdout)")
        }
    }

    @Test("record writes a command with #, quotes and braces so that the scenario runs that command")
    func recordQuotes() throws {
        let out = NSTemporaryDirectory() + "ringside-rec-\(UUID().uuidString)"
        let scenario = out + ".ring"
        let script = "echo 'a #b' > \(out); echo \"{token} {{x}}\" >> \(out)"
        let recorded = try run(
            AdapterTests.binary, ["record", "--out", scenario, "--certs", Paths.certs, "--", "sh", "-c", script])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "a #b\n{token} {{x}}\n")
        try FileManager.default.removeItem(atPath: out)
        let again = try run(AdapterTests.binary, ["run", "--certs", Paths.certs, scenario])
        #expect(again.status == 0, "\(again.stdout)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "a #b\n{token} {{x}}\n")
        let tab = try run(AdapterTests.binary, ["record", "--out", scenario, "--", "printf", "a\tb"])
        #expect(tab.status == 64, "\(tab.stderr)")
    }
}
