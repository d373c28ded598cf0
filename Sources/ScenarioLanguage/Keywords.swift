/// What each word of the schema means, in a line: `ringside explain KEYWORD` prints it, and a test
/// keeps it complete (every key, step and option of `Schema` has one). docs/scenario-language.md
/// says the same at length.
public enum Keywords {
    /// Top-level keys and block keys, by `block.key` (`top.seed`, `world.throttle` …), from each
    /// block's declaration (`Schema.blocks`).
    public static let keys: [String: String] = Dictionary(
        uniqueKeysWithValues: Schema.blocks.flatMap { block in
            block.keys.map { ("\(block.name).\($0.key)", $0.meaning) }
        })

    /// Steps, by kind (declared in `Vocabulary`).
    public static let steps: [String: String] = Dictionary(
        uniqueKeysWithValues: Vocabulary.steps.map { ($0.name, $0.meaning) })

    /// Step options, by `step.option` (declared in `Vocabulary`).
    public static let options: [String: String] = Dictionary(
        uniqueKeysWithValues: Vocabulary.steps.flatMap { step in
            step.options.map { ("\(step.name).\($0.key)", $0.meaning) }
        })

    /// A keyword in words: a step with its options, or a key (`throttle`, `world.throttle`).
    public static func explain(_ word: String) -> String? {
        if let step = Vocabulary.stepsByName[word] {
            let names = step.options.map { "  \($0.key): \($0.meaning) (\($0.takes.described))" }
            return (["- \(word): \(step.argument) — \(step.meaning)"] + (names.isEmpty ? [] : ["options:"] + names))
                .joined(separator: "\n")
        }
        let matches =
            keys.filter { $0.key == word || $0.key.hasSuffix(".\(word)") }
            + options.filter { $0.key == word || $0.key.hasSuffix(".\(word)") }
        guard !matches.isEmpty else { return nil }
        return matches.sorted { $0.key < $1.key }.map {
            "\($0.key.replacingOccurrences(of: "top.", with: "")): \($0.value)"
        }
        .joined(separator: "\n")
    }
}
