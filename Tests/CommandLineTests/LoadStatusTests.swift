import Foundation
import HTTP2Server
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

    /// `--load-csv` writes a row a second (SIPp's periodic statistics) and the transcript ends the
    /// load with its figures as JSON (issue 48, point 4).
    @Test("--load-csv writes the per-second series and the transcript keeps the load's summary as JSON")
    func seriesAndSummary() throws {
        let file = try Self.scenario()
        let folder = NSTemporaryDirectory() + "ringside-series-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let result = try run(
            Paths.ringside,
            ["run", "--certs", Paths.certs, "--load-csv", folder + ".csv", "--transcript", folder, file])
        defer { try? FileManager.default.removeItem(atPath: folder + ".csv") }
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try String(contentsOfFile: folder + ".csv", encoding: .utf8).split(separator: "\n")
        #expect(rows.first?.hasPrefix("scenario,second,placed,rang,ring_p50_ms,ring_p99_ms") == true, "\(rows)")
        // 24 calls at 8/s: seconds 0, 1 and 2 place 8 each.
        let placed = rows.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[2] }
        #expect(placed.prefix(3) == ["8", "8", "8"], "\(rows)")
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let lines = try String(contentsOfFile: folder + "/" + name + ".jsonl", encoding: .utf8).split(separator: "\n")
        let summary = try #require(lines.first { $0.contains("\"event\":\"load-summary\"") }, "\(lines.suffix(3))")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any], "\(summary)")
        #expect(object["calls"] as? Int == 24 && object["rang"] as? Int == 24, "\(summary)")
        #expect((object["answers"] as? [String: Int])?["200"] == 24, "\(summary)")
        #expect(object["ringP99Ms"] is Int, "\(summary)")
    }

    /// Ctrl-C stops placing calls; what ran is judged, and the run says it was cut short (exit 1).
    @Test("Ctrl-C stops a load: the calls placed are judged and the run says it was cut short")
    func interruptJudgesWhatRan() throws {
        let file = NSTemporaryDirectory() + "ringside-long-\(UUID().uuidString).ring"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        scenario: a long load
        steps:
          - load: long
            phones: 50
            calls: 600
            rate: 10/s
          - expect load: rings
            rang-at-least: 100%

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.ringside)
        process.arguments = ["run", "--certs", Paths.certs, file]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The first status line says the load is running (a line every 5 s in a log, the first at once).
        var said = ""
        while !said.contains("calls placed in") {
            let chunk = err.fileHandleForReading.readSomeRetryingInterrupts()
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        process.interrupt()
        let rest = err.fileHandleForReading.readAllRetryingInterrupts()
        let stdout = String(decoding: out.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self)
        process.waitUntilExit()
        said += String(decoding: rest, as: UTF8.self)
        #expect(process.terminationStatus == 1, "\(said)\n\(stdout)")
        #expect(said.contains("Ctrl-C: the load stops placing calls"), "\(said)")
        #expect(stdout.contains("cut short by Ctrl-C after"), "\(stdout)")
        #expect(!stdout.contains("rang-at-least") || stdout.contains("scenarios: 0 passed, 1 failed"))
        #expect(said.contains(" rang (100.0%)"), "the calls placed were judged: \(said)")
    }
}
