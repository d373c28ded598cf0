/// Text Ringside did not write — what a provider printed, payloads and header values, call ids,
/// file names, scenario lines — escaped for each output it reaches (issue 27: a provider that prints
/// `::error …`, or a scenario line with a lone carriage return, must not speak through Ringside).
/// Each output kind has one function here and every renderer goes through it.
public enum OutsideText {
    /// For the console and every other output: control characters (C0, DEL, C1), line and
    /// paragraph separators, bidirectional overrides and noncharacters shown as `\xNN` or
    /// `\u{NNNN}`, a backslash doubled. What comes out has no raw control byte and no line break,
    /// so no line Ringside did not author can begin (`::…` cannot reach the start of a line), and
    /// `readBack` gives the text again.
    public static func visible(_ text: String) -> String { visible(text, doublingBackslashes: true) }

    /// Text of several lines (a provider's output, an error that quotes it) for the console: each
    /// line `visible`, the lines kept, every one after the first behind `indent` — so a newline
    /// reads as a new line, not `\x0a`, and still no line Ringside did not author can begin.
    public static func visibleLines(_ text: String, indent: String = "    ") -> String {
        // `\r\n` is one Character: split on whatever breaks a line (LF, CR LF, CR, U+2028 …).
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { visible(String($0)) }
            .joined(separator: "\n" + indent)
    }

    /// A file the user wrote (a scenario line in the report), shown as written: its backslashes are
    /// its own, and it is not read back; control characters are still shown visibly.
    public static func visibleAsWritten(_ text: String) -> String { visible(text, doublingBackslashes: false) }

    private static func visible(_ text: String, doublingBackslashes: Bool) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if !needsEscape(scalar) || (scalar == "\\" && !doublingBackslashes) {
                out.unicodeScalars.append(scalar)
            } else if scalar == "\\" {
                out += "\\\\"
            } else if scalar.value < 0x100 {
                let hex = String(scalar.value, radix: 16)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x5C: return true  // the escape character itself
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        case 0xFFFE, 0xFFFF, 0xFEFF: return true
        default: return false
        }
    }

    /// The last net under every line a command writes (`Output`): control characters and the rest
    /// of `visible`'s list shown as `visible` shows them (a backslash is left alone: Ringside's own
    /// text has them), and a line that would open a GitHub workflow command (`::`) shown as `\x3a:`.
    /// Fields from outside are escaped where they are quoted (`visible`); this catches what a
    /// message quotes without it (a path in an error, a header `explain` reads back).
    public static func safeLine(_ line: String) -> String {
        var out = line
        if line.unicodeScalars.contains(where: { needsEscape($0) && $0 != "\\" && $0 != "\t" }) {
            out = ""
            for scalar in line.unicodeScalars {
                if needsEscape(scalar), scalar != "\\", scalar != "\t" {
                    out += visible(String(Character(scalar)))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        if out.hasPrefix("::") { out = "\\x3a" + out.dropFirst() }
        return out
    }

    /// `visible` undone (for the fuzzer's property and tests); nil for text `visible` cannot make.
    public static func readBack(_ text: String) -> String? {
        var out = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\\" else {
                out.append(scalar)
                continue
            }
            switch scalars.next() {
            case "\\": out.append("\\")
            case "x":
                guard let a = scalars.next(), let b = scalars.next(),
                    let value = UInt32(String(a) + String(b), radix: 16), let decoded = Unicode.Scalar(value)
                else { return nil }
                out.append(decoded)
            case "u":
                guard scalars.next() == "{" else { return nil }
                var hex = ""
                while let next = scalars.next(), next != "}" { hex.unicodeScalars.append(next) }
                guard let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) else { return nil }
                out.append(decoded)
            default: return nil
            }
        }
        return String(out)
    }

    /// GitHub workflow-command data (the message after `::`): `%`, CR and LF escaped as GitHub's
    /// "Workflow commands for GitHub Actions" says; callers make each outside piece `visible` first
    /// and join the pieces with line breaks of their own.
    public static func workflowData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A workflow-command property value (`file=`, `title=`): also `:` and `,`, which would end it;
    /// outside text in it is made `visible`.
    public static func workflowProperty(_ text: String) -> String {
        workflowData(visible(text)).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(
            of: ",", with: "%2C")
    }

    /// XML 1.0 (JUnit) and HTML text and attribute values: the five entities, and every character
    /// XML 1.0 forbids (C0 controls but tab, line feed and carriage return; U+FFFE, U+FFFF) shown
    /// as `visible` shows it. Text that holds Ringside's own line breaks keeps them; a single
    /// outside value is made `visible` first by its caller (`markup(visible(name))`).
    public static func markup(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += visible(String(Character(scalar)))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
