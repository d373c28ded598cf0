import Foundation
import FoundationXML
import TestSupport
import Testing

/// What Ringside writes cannot be turned into commands (issue 27): a provider that prints workflow
/// commands, control bytes and terminal escapes, and a scenario line holding a lone carriage return,
/// reach the console, `--format github` and JUnit only as visible text.
@Suite struct HostileOutputTests {
    @Test("No line Ringside did not author starts a workflow command; no raw control byte; JUnit parses")
    func hostileProviderAndScenario() throws {
        let folder = NSTemporaryDirectory() + "ringside-hostile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The provider prints a workflow command, one after a lone CR, ESC sequences, NUL and a byte
        // XML forbids, then fails, so that the failure shows what it printed.
        try #"""
        printf '::error file=/etc/passwd::owned\n\r::warning file=/etc/shadow::after a CR\033[31m\000\013\n'
        exit 1
        """#.write(toFile: folder + "/provider.sh", atomically: true, encoding: .utf8)
        try """
        scenario: hostile \u{1b}[2J
        phones:
          - name: alice
        provider:
          exec: sh "{dir}/provider.sh"
        steps:
          - register: alice
          - call: alice
          - expect phone: alice
            outcome: rang

        """.write(toFile: folder + "/hostile.ring", atomically: true, encoding: .utf8)
        try "scenario: cr\nsteps:\n  - wait: 1s\r::error file=/etc/passwd::from a scenario line\n".write(
            toFile: folder + "/cr.ring", atomically: true, encoding: .utf8)
        let junit = folder + "/junit.xml"
        let result = try run(
            Paths.ringside,
            [
                "run", "--certs", Paths.certs, "--format", "github", "--junit", junit, folder + "/hostile.ring",
                folder + "/cr.ring",
            ])
        #expect(result.status != 0)
        let output = result.stdout + result.stderr
        for segment in output.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            if segment.hasPrefix("::") {
                #expect(
                    segment.hasPrefix("::error file=\(folder)") || segment.hasPrefix("::notice file=\(folder)"),
                    "\(segment)")
            }
        }
        #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "a raw control byte: \(output)")
        #expect(output.contains("\\x1b"), "\(output)")
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: junit))
        #expect(try document.nodes(forXPath: "//testcase").count == 2)
    }

    /// What every command writes goes through one net (Output, OutsideText.safeLine): an argument, a
    /// path or a word `explain` reads back is quoted in error messages and explanations, and cannot
    /// start a line of its own (the adversary's findings: explain, run, argument errors, replay).
    @Test(
        "Hostile arguments quoted by any command start no workflow command and no raw escape",
        arguments: [
            ["explain", "Unregistered\u{1b}[31m\r::error::X\n::warning::LF\u{85}\u{202e}"],
            ["run", "/tmp/no\n::error::nx\r::warning::cr\u{1b}[31m"],
            ["run", "--format", "github", "/tmp/no\n::error::nx"],
            ["bogus\n::error::X"],
            ["run", "--bogus\n::error::X"],
            ["check", "/tmp/no\r::error::X.ring"],
        ])
    func hostileArguments(arguments: [String]) throws {
        let result = try run(Paths.ringside, arguments)
        let output = result.stdout + result.stderr
        for segment in output.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            #expect(!segment.hasPrefix("::"), "\(arguments): \(segment)")
        }
        #expect(
            !output.unicodeScalars.contains {
                ($0.value < 0x20 && $0 != "\n") || $0.value == 0x85 || $0.value == 0x202E
            })
    }
}
