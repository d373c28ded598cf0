/// One option of a command, declared once: its spelling, what it takes, and its line in `--help`.
/// `Arguments` parses only what a command's table declares, and `CommandSpec` prints the same rows.
struct OptionSpec: Sendable {
    /// What follows the option's name.
    enum Kind: Sendable {
        /// Nothing: the option is present or not.
        case flag
        /// Any text.
        case text
        /// A whole number within the range; one outside it is a usage error quoting both.
        case number(ClosedRange<Int128>)
        /// One of these words.
        case choice([String])
    }

    /// `--name`, as typed.
    let name: String
    /// The placeholder `--help` shows after the name (`PORT`), none for a flag.
    let value: String?
    let kind: Kind
    /// Sentences for `--help`; a number's range is added to them.
    let help: String

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, kind: .flag, help: help)
    }

    static func text(_ name: String, _ value: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: value, kind: .text, help: help)
    }

    static func number(_ name: String, _ value: String, in range: ClosedRange<Int128>, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: value, kind: .number(range), help: help)
    }

    static func choice(_ name: String, _ value: String, _ choices: [String], _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: value, kind: .choice(choices), help: help)
    }

    /// A choice among an enumeration's raw values.
    static func choice<T: CaseIterable & RawRepresentable>(
        _ name: String, _ value: String, _ type: T.Type, _ help: String
    )
        -> OptionSpec
    where T.RawValue == String {
        choice(name, value, T.allCases.map(\.rawValue), help)
    }

    /// Every command's `--help` (also `-h`).
    static let help = flag("--help", "This text (also -h).")
    /// Where the test keys and certificates are, for every command that signs or serves.
    static let certs = text("--certs", "DIR", "Test credentials (default: ./certs-test, else the release's).")
    /// Any seed a `UInt64` holds.
    static let seeds: ClosedRange<Int128> = 0...Int128(UInt64.max)

    /// The line or lines `--help` shows: the name and placeholder in a column, then the help, wrapped.
    var helpLines: [String] {
        let left = value.map { "\(name) \($0)" } ?? name
        var text = help
        if case .number(let range) = kind { text += " Range: \(range)." }
        let column = 23
        let lead =
            "  " + (left.count < column ? left.padding(toLength: column, withPad: " ", startingAt: 0) : left + "  ")
        return Self.wrap(text, width: 108 - column - 2).enumerated().map { index, line in
            (index == 0 ? lead : String(repeating: " ", count: column + 2)) + line
        }
    }

    /// Words into lines of at most `width` characters (a longer word gets a line of its own).
    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }
}
