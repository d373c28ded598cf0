import Foundation
import TestSupport
import Testing

/// A running load shows how far it got (issue 48, point 3): on a terminal a status block redrawn
/// in place every second; in a CI log (not a terminal) the block every few seconds; the final
/// figures once, either way.
@Suite struct LoadStatusTests {
    static func scenario() throws -> String {
        let file = NSTemporaryDirectory() + "ringside-load-\(UUID().uuidString).ring"
        try """
        scenario: a short steady load
        steps:
          - load: steady
            phones: 20
            calls: 24
            rate: 8/s
          - expect load: rings
            rang-at-least: 100%

        """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("On a terminal the status block is redrawn in place; in a log it is written, then the final figures")
    func statusBlock() throws {
        let file = try Self.scenario()
        defer { try? FileManager.default.removeItem(atPath: file) }
        // `script` gives the run a terminal (util-linux).
        let terminal = try run(
            "/usr/bin/script", ["-qc", "\(Paths.ringside) run --certs \(Paths.certs) \(file)", "/dev/null"])
        #expect(terminal.stdout.contains("\u{1B}[3A\u{1B}[J"), "\(terminal.stdout.prefix(400))")
        #expect(terminal.stdout.contains("calls placed in") && terminal.stdout.contains("(target 8/s)"))
        #expect(terminal.stdout.contains("24 calls (24 to phones that could ring): 24 rang (100.0%)"))
        let log = try run(Paths.ringside, ["run", "--certs", Paths.certs, file])
        #expect(log.status == 0)
        #expect(!log.stderr.contains("\u{1B}"), "no cursor movement in a log")
        #expect(log.stderr.contains("calls placed in"), "\(log.stderr)")
        #expect(log.stderr.contains("24 calls (24 to phones that could ring): 24 rang (100.0%)"), "\(log.stderr)")
    }
}
