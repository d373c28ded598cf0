import Foundation
import HTTP2Server
import TestSupport
import Testing

/// Every curl example of docs/control-api.md runs, in order, against `ringside serve`, and its answer
/// matches the documented one.
@Suite(.serialized) struct ControlAPIDocumentationTests {
    struct Example {
        var command: String
        var expected: String
        var isJSON: Bool
    }

    /// The `sh` blocks, each with the `json` or `text` block after it.
    static func examples(_ markdown: String) -> [Example] {
        var examples: [Example] = []
        var blocks: [(language: String, text: String)] = []
        var current: (String, [String])?
        for line in markdown.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                if let open = current {
                    blocks.append((open.0, open.1.joined(separator: "\n")))
                    current = nil
                } else {
                    current = (String(line.dropFirst(3)), [])
                }
            } else if current != nil {
                current!.1.append(line)
            }
        }
        for (index, block) in blocks.enumerated() where block.language == "sh" && index + 1 < blocks.count {
            let answer = blocks[index + 1]
            examples.append(Example(command: block.text, expected: answer.text, isJSON: answer.language == "json"))
        }
        return examples
    }

    /// Documented JSON matches when every documented field is there with a matching value;
    /// `"<any>"` matches anything.
    static func matches(_ expected: Any, _ actual: Any) -> Bool {
        if let text = expected as? String, text == "<any>" { return true }
        switch (expected, actual) {
        case (let e as [String: Any], let a as [String: Any]):
            return e.allSatisfy { key, value in a[key].map { matches(value, $0) } ?? false }
        case (let e as [Any], let a as [Any]):
            return e.count == a.count && zip(e, a).allSatisfy { matches($0, $1) }
        case (let e as NSNumber, let a as NSNumber): return e == a
        case (let e as String, let a as String): return e == a
        case (is NSNull, is NSNull): return true
        default: return false
        }
    }

    @Test("Every example in docs/control-api.md gives the documented answer")
    func examplesRun() throws {
        let markdown = try String(contentsOfFile: Paths.root + "/docs/control-api.md", encoding: .utf8)
        let examples = Self.examples(markdown)
        #expect(examples.count >= 12)
        let serve = try ServeCommandTests.Serve(["--quiet", "--seed", "1"])
        defer { _ = serve.interrupt() }
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in serve.contract { environment[key] = value }
        environment["PATH"] = Paths.root + "/.build/debug:" + (environment["PATH"] ?? "/usr/bin:/bin")
        for example in examples {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", example.command]
            process.environment = environment
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let output = String(decoding: out.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self)
            process.waitUntilExit()
            let lines = output.split(separator: "\n").map(String.init)
            let expectedLines = example.expected.split(separator: "\n").map(String.init)
            if example.isJSON, expectedLines.count > 1, let first = expectedLines.first, !first.hasPrefix("{"),
                !first.hasPrefix("[")
            {
                // A status line, then one JSON object.
                #expect(lines.first == first, "\(example.command)")
                let expected = try JSONSerialization.jsonObject(with: Data(expectedLines.dropFirst().joined().utf8))
                let actual = try JSONSerialization.jsonObject(with: Data(lines.dropFirst().joined().utf8))
                #expect(Self.matches(expected, actual), "\(example.command)\n→ \(output)")
            } else if example.isJSON {
                let expected = try JSONSerialization.jsonObject(with: Data(example.expected.utf8))
                let actual = try JSONSerialization.jsonObject(with: Data(output.utf8))
                #expect(Self.matches(expected, actual), "\(example.command)\n→ \(output)")
            } else {
                #expect(Golden.matchesText(example.expected, output), "\(example.command)\n→ \(output)")
            }
        }
    }
}
