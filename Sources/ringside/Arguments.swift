import APNs
import ScenarioLanguage

/// A small command-line reader over a command's option table: `--name value`, `--name=value` and
/// `--flag`, with clear usage errors. Options are read by their declaration (each command's
/// `Option`), never by a string: a misspelt one does not compile. Reading one the command's table
/// lacks is a programming error; a number outside its declared range is a usage error.
struct Arguments {
    private var items: [String]
    let command: CommandSpec

    init(_ items: [String], command: CommandSpec) {
        self.items = items
        self.command = command
    }

    /// Takes `--help` or `-h`; true if either was present.
    mutating func help() -> Bool {
        let asked = flag(OptionSpec.help)
        guard let index = items.firstIndex(of: "-h") else { return asked }
        items.remove(at: index)
        return true
    }

    /// Takes `--name`; true if present.
    mutating func flag(_ declared: OptionSpec) -> Bool {
        let name = declared.name
        guard case .flag = command.option(name).kind else { preconditionFailure("\(name) is not a flag") }
        guard let index = items.firstIndex(of: name) else { return false }
        items.remove(at: index)
        return true
    }

    /// Takes `--name value` or `--name=value`; a choice's value must be one of its words.
    mutating func value(_ declared: OptionSpec) throws(UsageError) -> String? {
        let name = declared.name
        let option = command.option(name)
        if case .flag = option.kind { preconditionFailure("\(name) is a flag") }
        guard let text = try take(name) else { return nil }
        if case .choice(let choices) = option.kind {
            // In any case, as APNs reasons were always read (`Reason(wire:)`); given back as declared.
            guard let chosen = choices.first(where: { $0.lowercased() == text.lowercased() }) else {
                throw UsageError("\(name) <\(text)> is not one of \(choices.joined(separator: ", "))")
            }
            return chosen
        }
        return text
    }

    /// Takes every `--name value` given, for an option that may be repeated.
    mutating func values(_ declared: OptionSpec) throws(UsageError) -> [String] {
        var all: [String] = []
        while let text = try value(declared) { all.append(text) }
        return all
    }

    /// Takes `--name value` where value is one of the declared choices, as `T`.
    mutating func choice<T: RawRepresentable>(_ declared: OptionSpec, _ type: T.Type) throws(UsageError) -> T?
    where T.RawValue == String {
        guard let text = try value(declared) else { return nil }
        guard let chosen = T(rawValue: text) else {
            preconditionFailure("\(declared.name) declares <\(text)>, not a \(T.self)")
        }
        return chosen
    }

    /// Takes `--name N` where N is a whole number within the declared range.
    mutating func number<T: FixedWidthInteger>(_ declared: OptionSpec, _ type: T.Type) throws(UsageError) -> T? {
        let name = declared.name
        guard case .number(let range) = command.option(name).kind else {
            preconditionFailure("\(name) is not declared a number")
        }
        precondition(
            T(exactly: range.lowerBound) != nil && T(exactly: range.upperBound) != nil,
            "\(name) declares \(range), more than a \(T.self) holds")
        guard let text = try take(name) else { return nil }
        guard let number = Int128(text) else { throw UsageError("\(name) <\(text)> is not a whole number in \(range)") }
        guard range.contains(number), let result = T(exactly: number) else {
            throw UsageError("\(name) <\(text)> is not in \(range)")
        }
        return result
    }

    /// Takes every argument left (positional ones); an unknown option is a usage error.
    mutating func remaining() throws(UsageError) -> [String] {
        if let option = items.first(where: { $0.hasPrefix("--") }) { throw unknown(option, "option") }
        defer { items.removeAll() }
        return items
    }

    /// Fails on anything left over.
    func finish() throws(UsageError) {
        if let first = items.first { throw unknown(first, first.hasPrefix("--") ? "option" : "argument") }
    }

    private mutating func take(_ name: String) throws(UsageError) -> String? {
        if let index = items.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let item = items.remove(at: index)
            return String(item.dropFirst(name.count + 1))
        }
        guard let index = items.firstIndex(of: name) else { return nil }
        guard index + 1 < items.count else {
            throw UsageError("\(name) needs a value; see 'ringside \(command.name) --help'")
        }
        let value = items[index + 1]
        items.removeSubrange(index...index + 1)
        return value
    }

    private func unknown(_ item: String, _ what: String) -> UsageError {
        let name = String(item.prefix { $0 != "=" })
        // A declared option still here was read once already: it was given twice.
        if command.options.contains(where: { $0.name == name }) {
            return UsageError("<\(name)> is given twice; see 'ringside \(command.name) --help'")
        }
        let hint =
            what == "option"
            ? didYouMean(name, among: command.options.map(\.name)).map { "did you mean <\($0)>? " } : nil
        return UsageError("unknown \(what) <\(item)>; \(hint ?? "")see 'ringside \(command.name) --help'")
    }
}

/// A mistake on the command line: exit 64 (README, "Exit codes").
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
