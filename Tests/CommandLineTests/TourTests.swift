import Foundation
import TestSupport
import Testing

/// docs/tour.md's commands print what the tour says they print (`<any>` for times and ids): each
/// `sh` block is run in the checkout with the debug build on PATH, and its output compared with
/// the `text` block after it.
@Suite(.serialized) struct TourTests {
    static func steps() throws -> [(command: String, output: String)] {
        let markdown = try String(contentsOfFile: Paths.root + "/docs/tour.md", encoding: .utf8)
        var steps: [(String, String)] = []
        let blocks = markdown.components(separatedBy: "```sh\n").dropFirst()
        for block in blocks {
            let command = block.components(separatedBy: "\n```")[0]
            guard let text = block.components(separatedBy: "```text\n").dropFirst().first else { continue }
            steps.append((command, text.components(separatedBy: "\n```")[0]))
        }
        return steps
    }

    @Test("The tour has thirteen steps, each with its command and output")
    func thirteenSteps() throws {
        let markdown = try String(contentsOfFile: Paths.root + "/docs/tour.md", encoding: .utf8)
        #expect(markdown.components(separatedBy: "\n## ").count - 1 == 13)
        #expect(try Self.steps().count == 13)
    }

    @Test("Each command of the tour prints what the tour shows", arguments: 0..<13)
    func stepPrintsWhatTheTourShows(_ index: Int) throws {
        let step = try Self.steps()[index]
        // One command per line, each with its error output, as a reader's terminal shows them.
        let script = step.command.split(separator: "\n").map { "\($0) 2>&1" }.joined(separator: "; ")
        let result = try run(
            "/usr/bin/env",
            ["PATH=\(Paths.root)/.build/debug:/usr/local/bin:/usr/bin:/bin", "bash", "-c", script],
            directory: Paths.root)
        try? FileManager.default.removeItem(atPath: Paths.root + "/report.html")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.isEmpty }
        let expected = step.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.isEmpty }
        #expect(lines.count == expected.count, "\(step.command)\n\(result.stdout)")
        for (line, pattern) in zip(lines, expected) {
            #expect(Golden.matchesText(pattern, line), "\(line)\n≠ \(pattern)")
        }
    }
}
