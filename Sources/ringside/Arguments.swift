/// A small command-line reader: `--name value`, `--name=value` and `--flag`, with clear usage errors.
struct Arguments {
    private var items: [String]
    let command: String

    init(_ items: [String], command: String) {
        self.items = items
        self.command = command
    }

    /// Takes `--name`; true if present.
    mutating func flag(_ name: String) -> Bool {
        guard let index = items.firstIndex(of: name) else { return false }
        items.remove(at: index)
        return true
    }

    /// Takes `--name value` or `--name=value`.
    mutating func value(_ name: String) throws(UsageError) -> String? {
        if let index = items.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let item = items.remove(at: index)
            return String(item.dropFirst(name.count + 1))
        }
        guard let index = items.firstIndex(of: name) else { return nil }
        guard index + 1 < items.count else {
            throw UsageError("\(name) needs a value; see 'ringside \(command) --help'")
        }
        let value = items[index + 1]
        items.removeSubrange(index...index + 1)
        return value
    }

    /// Takes `--name value` where value must be one of `choices`.
    mutating func choice<T: RawRepresentable>(_ name: String, _ type: T.Type, choices: [T]) throws(UsageError) -> T?
    where T.RawValue == String {
        guard let text = try value(name) else { return nil }
        guard let chosen = T(rawValue: text) else {
            throw UsageError("\(name) <\(text)> is not one of \(choices.map(\.rawValue).joined(separator: ", "))")
        }
        return chosen
    }

    mutating func number<T: FixedWidthInteger>(_ name: String, _ type: T.Type) throws(UsageError) -> T? {
        guard let text = try value(name) else { return nil }
        guard let number = T(text) else { throw UsageError("\(name) <\(text)> is not a whole number in range") }
        return number
    }

    /// Takes every argument left (positional ones); an unknown option is a usage error.
    mutating func remaining() throws(UsageError) -> [String] {
        if let option = items.first(where: { $0.hasPrefix("--") }) {
            throw UsageError("unknown option <\(option)>; see 'ringside \(command) --help'")
        }
        defer { items.removeAll() }
        return items
    }

    /// Fails on anything left over.
    func finish() throws(UsageError) {
        if let first = items.first {
            throw UsageError("unknown argument <\(first)>; see 'ringside \(command) --help'")
        }
    }
}

/// A mistake on the command line: exit 64 (README, "Exit codes").
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
