import Foundation
import HTTP2Server
import TestSupport
import Testing

@testable import ringside

/// Each command's option table is the one declaration of its options, as the binary shows it:
/// `--help` shows every row and names no option outside the tables, a number outside its range is
/// refused quoting both, and the parser reads no option its table lacks. (Here, not in the unit
/// run: these start the binary.)
@Suite("Option tables, through the binary")
struct OptionTableBinaryTests {
    static let binary = Paths.ringside
    static let commands = CommandSpec.all.map(\.name)

    static func spec(_ name: String) -> CommandSpec { CommandSpec.all.first { $0.name == name }! }

    /// Every `--option` written in a text.
    static func options(in text: String) -> [(name: String, line: Substring)] {
        text.split(separator: "\n").flatMap { line in
            line.matches(of: /--[a-z][a-z0-9-]*/).map { (String($0.output), line) }
        }
    }

    @Test("Every row of the table is in `ringside CMD --help`, with its range or its choices", arguments: commands)
    func everyRowIsInHelp(command: String) throws {
        let help = try run([command, "--help"])
        #expect(help.status == 0)
        let shown = Set(Self.options(in: help.stdout).map(\.name))
        for option in Self.spec(command).options {
            #expect(shown.contains(option.name), "\(command) --help lacks \(option.name)")
            switch option.kind {
            case .number(let range): #expect(help.stdout.contains("\(range)"), "\(option.name): \(range)")
            case .choice(let words):
                for word in words { #expect(help.stdout.contains(word), "\(option.name): \(word)") }
            case .flag, .text: break
            }
        }
    }

    @Test("Every --option in `ringside CMD --help` is in its table, or in the table of a command it names")
    func helpNamesOnlyDeclaredOptions() throws {
        for command in Self.commands {
            let help = try run([command, "--help"]).stdout
            let declared = Set(Self.spec(command).options.map(\.name))
            for (name, line) in Self.options(in: help) where !declared.contains(name) {
                // `ringside run --transcript DIR` in another command's help is run's option.
                let other = CommandSpec.all.first { line.contains("ringside \($0.name) ") }
                #expect(
                    other?.options.contains { $0.name == name } == true,
                    "ringside \(command) --help names \(name), which no table declares: \(line)")
            }
        }
    }

    @Test("A number outside its declared range exits 64 and quotes the value and the range", arguments: commands)
    func numberOutOfRange(command: String) throws {
        for option in Self.spec(command).options {
            guard case .number(let range) = option.kind else { continue }
            for value in [range.lowerBound - 1, range.upperBound + 1] {
                // The unknown option stops the command if the range were not checked.
                let result = try run([command, option.name, "\(value)", "--no-such-option"])
                #expect(result.status == 64, "\(command) \(option.name) \(value): \(result.stderr)")
                #expect(
                    result.stderr.contains("\(option.name) <\(value)> is not in \(range)"),
                    "\(command) \(option.name) \(value): \(result.stderr)")
            }
        }
    }

    /// Each command reads all its options before it acts, so an unknown one is found after every read:
    /// an option read but missing from the table stops the binary on a precondition instead.
    @Test("An unknown option exits 64 naming it, after the command has read every option it knows", arguments: commands)
    func unknownOptionAfterEveryRead(command: String) throws {
        // `record` parses only what comes before its command.
        let words = [command, "--no-such-option"] + (command == "record" ? ["--", "true"] : [])
        let result = try run(words)
        #expect(result.status == 64, "\(command): \(result.status) \(result.stderr)")
        #expect(result.stderr.contains("<--no-such-option>"), "\(command): \(result.stderr)")
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Help and usage errors are a few kilobytes: neither pipe fills while the other is read.
        let stdout = out.fileHandleForReading.readAllRetryingInterrupts()
        let stderr = err.fileHandleForReading.readAllRetryingInterrupts()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)
        )
    }
}
