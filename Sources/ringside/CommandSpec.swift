/// A command's `--help` and its option table, declared once: `Arguments` parses from the same rows.
struct CommandSpec: Sendable {
    /// `serve`, as typed after `ringside`.
    let name: String
    /// One line for `ringside --help`.
    let abstract: String
    /// What follows `[options]` on the usage line (`FILE…`), if anything.
    let operands: String
    /// The paragraphs between the usage line and the options, as written.
    let about: String
    /// Every option but `--help`, which every command has; in the order `--help` lists them.
    let options: [OptionSpec]
    /// The last paragraph: the command's exit codes.
    let exitCodes: String

    init(
        _ name: String, abstract: String, operands: String = "", about: String, options: [OptionSpec] = [],
        exitCodes: String
    ) {
        self.name = name
        self.abstract = abstract
        self.operands = operands
        self.about = about
        self.options = options + [.help]
        self.exitCodes = exitCodes
    }

    /// The declared option called `name`; asking for one the table lacks is a programming error.
    func option(_ name: String) -> OptionSpec {
        guard let option = options.first(where: { $0.name == name }) else {
            preconditionFailure("ringside \(self.name) reads \(name), which its option table does not declare")
        }
        return option
    }

    /// `ringside NAME --help`: the usage line, the paragraphs, the options, the exit codes.
    var help: String {
        let usage = ["Usage: ringside", name, options.count > 1 ? "[options]" : "", operands].filter { !$0.isEmpty }
        let rows = options.flatMap(\.helpLines).joined(separator: "\n")
        return [usage.joined(separator: " "), about, "Options:\n" + rows, exitCodes].joined(separator: "\n\n")
    }

    /// Every command, in the order `ringside --help` lists them.
    static var all: [CommandSpec] {
        [
            RunCommand.spec, ServeCommand.spec, CheckCommand.spec, ReplayCommand.spec, RecordCommand.spec,
            SendCommand.spec, ExplainCommand.spec, TokenCommand.spec, InitCommand.spec, CoverageCommand.spec,
        ]
    }

    /// A line per command for `ringside --help`: its name, then its abstract.
    static var summaries: String {
        all.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.abstract }
            .joined(separator: "\n")
    }
}
