/// Builds one JSON object as text, in field order, for JSONL transcripts (no Foundation round trip,
/// so a line costs one allocation and keys keep a stable order for diffs).
struct JSONLine {
    private(set) var text = "{"
    private var first = true

    mutating func field(_ key: String, _ value: String?) {
        guard let value else { return }
        writeKey(key)
        text += JSONLine.quoted(value)
    }

    mutating func field(_ key: String, _ value: Int64?) {
        guard let value else { return }
        writeKey(key)
        text += String(value)
    }

    mutating func field(_ key: String, _ value: Int?) { field(key, value.map(Int64.init)) }

    mutating func field(_ key: String, _ value: Bool) {
        writeKey(key)
        text += value ? "true" : "false"
    }

    /// A nested object, already rendered.
    mutating func raw(_ key: String, _ json: String) {
        writeKey(key)
        text += json
    }

    mutating func finish() -> String {
        text + "}"
    }

    private mutating func writeKey(_ key: String) {
        if !first { text += "," }
        first = false
        text += JSONLine.quoted(key) + ":"
    }

    static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
