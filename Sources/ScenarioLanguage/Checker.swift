import APNs

/// Checks a parsed scenario against the schema: unknown keys and values get "did you mean",
/// missing keys and wrong shapes get a clear line. No I/O; the runner needs a checked file.
public struct Checker {
    public static func check(_ file: SourceFile) -> [Diagnostic] {
        switch Parser.parse(file) {
        case .failure(let diagnostic): return [diagnostic]
        case .success(let root):
            var problems: [Diagnostic] = []
            checkBlock(root, schema: Schema.top, required: Schema.requiredTop, context: "a scenario", into: &problems)
            return problems.sorted { $0.range.start < $1.range.start }
        }
    }

    static func checkBlock(
        _ mapping: Mapping, schema: [String: Schema.Value], required: [String], context: String,
        into problems: inout [Diagnostic]
    ) {
        for entry in mapping.entries {
            guard let expected = schema[entry.key] else {
                problems.append(
                    Diagnostic(
                        "Unknown key", at: entry.keyRange,
                        detail: "<\(entry.key)> is not a key of \(context)",
                        suggestion: didYouMean(entry.key, among: schema.keys.sorted())))
                continue
            }
            checkValue(entry.value, expected, key: entry.key, into: &problems)
        }
        for key in required where mapping.value(key) == nil {
            problems.append(
                Diagnostic(
                    "Missing key", at: mapping.range, detail: "\(context) needs <\(key)>",
                    suggestion: nil))
        }
    }

    static func checkValue(_ node: Node, _ expected: Schema.Value, key: String, into problems: inout [Diagnostic]) {
        switch (expected, node) {
        case (.text, .scalar): return
        case (.number, .scalar(let scalar)):
            if Double(scalar.text) == nil {
                problems.append(
                    Diagnostic(
                        "Not a number", at: scalar.range, detail: "<\(key)> takes a number, got <\(scalar.text)>"))
            }
        case (.boolean, .scalar(let scalar)):
            if !["true", "false", "yes", "no"].contains(scalar.text) {
                problems.append(
                    Diagnostic(
                        "Not true or false", at: scalar.range,
                        detail: "<\(key)> takes true or false, got <\(scalar.text)>",
                        suggestion: didYouMean(scalar.text, among: ["true", "false"])))
            }
        case (.duration, .scalar(let scalar)):
            if parseDuration(scalar.text) == nil {
                problems.append(
                    Diagnostic(
                        "Not a duration", at: scalar.range,
                        detail:
                            "<\(key)> takes a duration like <250ms>, <30s>, <5m>, <2h> or <1d>, got <\(scalar.text)>"))
            }
        case (.rate, .scalar(let scalar)):
            if parseRate(scalar.text) == nil {
                problems.append(
                    Diagnostic(
                        "Not a rate", at: scalar.range,
                        detail: "<\(key)> takes <N per DURATION> like <3 per 60s>, or <off>; got <\(scalar.text)>"))
            }
        case (.oneOf(let choices), .scalar(let scalar)):
            if !choices.contains(scalar.text) {
                problems.append(
                    Diagnostic(
                        "Unknown value", at: scalar.range,
                        detail:
                            "<\(key)> takes one of \(choices.prefix(8).joined(separator: ", "))\(choices.count > 8 ? ", …" : ""); got <\(scalar.text)>",
                        suggestion: didYouMean(scalar.text, among: choices)))
            }
        case (.list(let element), .sequence(let sequence)):
            for item in sequence.items { checkValue(item, element, key: key, into: &problems) }
        case (.list(let element), .scalar):
            checkValue(node, element, key: key, into: &problems)
        case (.block(let schema, let required), .mapping(let mapping)):
            checkBlock(mapping, schema: schema, required: required, context: "<\(key)>", into: &problems)
        case (.listOf(let schema, let required), .sequence(let sequence)):
            for item in sequence.items {
                guard case .mapping(let mapping) = item else {
                    problems.append(
                        Diagnostic(
                            "Expected a block", at: item.range, detail: "each item of <\(key)> is `key: value` lines"))
                    continue
                }
                checkBlock(mapping, schema: schema, required: required, context: "an item of <\(key)>", into: &problems)
            }
        case (.steps, .sequence(let sequence)):
            for item in sequence.items { checkStep(item, into: &problems) }
        default:
            problems.append(
                Diagnostic(
                    "Wrong shape", at: node.range, detail: "<\(key)> takes \(describe(expected)), found \(node.kind)"))
        }
    }

    /// A step is a mapping whose first key names its kind (`call: alice`), with options after it.
    static func checkStep(_ node: Node, into problems: inout [Diagnostic]) {
        guard case .mapping(let mapping) = node, let first = mapping.entries.first else {
            problems.append(
                Diagnostic(
                    "Expected a step", at: node.range,
                    detail:
                        "a step is `- kind: value`, e.g. <- call: alice>; kinds are \(Schema.steps.keys.sorted().joined(separator: ", "))"
                ))
            return
        }
        guard let options = Schema.steps[first.key] else {
            problems.append(
                Diagnostic(
                    "Unknown step", at: first.keyRange, detail: "<\(first.key)> is not a step",
                    suggestion: didYouMean(first.key, among: Schema.steps.keys.sorted())))
            return
        }
        if first.key == "advance" || first.key == "wait" {
            checkValue(first.value, .duration, key: first.key, into: &problems)
        }
        if first.key == "fault", case .scalar(let scalar) = first.value {
            let actions = [
                "drop", "delay", "goaway", "stale-connections", "lower-streams-after-rejection",
                "untrusted-server-certificate",
            ]
            if !actions.contains(scalar.text), Reason(wire: scalar.text) == nil {
                problems.append(
                    Diagnostic(
                        "Unknown fault", at: scalar.range,
                        detail: "<\(scalar.text)> is neither an APNs reason nor a fault action",
                        suggestion: didYouMean(scalar.text, among: Schema.reasons + actions)))
            }
        }
        checkBlock(
            Mapping(entries: Array(mapping.entries.dropFirst()), range: mapping.range), schema: options, required: [],
            context: "a <\(first.key)> step", into: &problems)
    }

    static func describe(_ value: Schema.Value) -> String {
        switch value {
        case .text, .number, .boolean, .duration, .rate, .oneOf: return "a value"
        case .list: return "a list"
        case .block: return "a block of `key: value` lines"
        case .listOf, .steps: return "a list of `- ` items"
        }
    }
}
