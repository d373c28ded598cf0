/// Reads scenario text into a syntax tree (docs/scenario-grammar.md): indentation, `key: value`,
/// `- ` items, `#` comments, `|` text blocks, `[a, b]` inline lists, "quoted" values. No I/O.
public struct Parser {
    /// One meaningful line: its indentation and content (comments and blank lines are gone).
    struct Line {
        var number: Int
        var indent: Int
        var content: Substring
        var raw: Substring
    }

    let file: SourceFile
    private var lines: [Line] = []
    private var index = 0
    private var depth = 0
    static let maximumDepth = 32

    public init(file: SourceFile) { self.file = file }

    public static func parse(_ file: SourceFile) -> Result<Mapping, Diagnostic> {
        var parser = Parser(file: file)
        return parser.parseFile()
    }

    private mutating func parseFile() -> Result<Mapping, Diagnostic> {
        for (offset, raw) in file.lines.enumerated() {
            // One pass over the bytes finds the lines that need a closer look (a tab, a control
            // character, a comment, a character beyond ASCII whose spaces may combine); most need none.
            var plain = true
            for byte in raw.utf8 where byte < 32 || byte >= 127 || byte == UInt8(ascii: "#") {
                plain = false
                break
            }
            if plain {
                let indent = raw.utf8.prefix { $0 == UInt8(ascii: " ") }.count
                let trimmed = raw.dropFirst(indent)
                if !trimmed.isEmpty {
                    lines.append(Line(number: offset + 1, indent: indent, content: trimmed, raw: raw))
                }
                continue
            }
            if raw.contains("\t") {
                let column = raw.distance(from: raw.startIndex, to: raw.firstIndex(of: "\t")!) + 1
                return .failure(
                    Diagnostic(
                        "Tab character",
                        at: SourceRange(start: SourceLocation(line: offset + 1, column: column), length: 1),
                        detail: "indent with spaces; tabs make the nesting ambiguous"))
            }
            if let control = raw.firstIndex(where: { $0.isASCII && ($0.asciiValue! < 32 || $0.asciiValue! == 127) }) {
                return .failure(
                    Diagnostic(
                        "Control character",
                        at: SourceRange(
                            start: SourceLocation(
                                line: offset + 1, column: raw.distance(from: raw.startIndex, to: control) + 1),
                            length: 1),
                        detail: "a scenario is plain text: no NUL, carriage return or other control character here"))
            }
            let content = Self.stripComment(raw)
            let trimmed = content.drop { $0 == " " }
            if trimmed.allSatisfy({ $0 == " " }) { continue }
            lines.append(Line(number: offset + 1, indent: content.count - trimmed.count, content: trimmed, raw: raw))
        }
        guard !lines.isEmpty else {
            return .failure(
                Diagnostic(
                    "Empty scenario", at: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1),
                    detail: "a scenario needs at least `scenario:` and `steps:`"))
        }
        if lines[0].indent != 0 {
            return .failure(unexpectedIndent(lines[0]))
        }
        switch parseBlock(indent: 0) {
        case .failure(let diagnostic): return .failure(diagnostic)
        case .success(.mapping(let mapping)):
            if index < lines.count { return .failure(unexpectedIndent(lines[index])) }
            return .success(mapping)
        case .success(let other):
            return .failure(
                Diagnostic(
                    "Not a scenario", at: other.range,
                    detail: "the file must be `key: value` lines at the top level, found \(other.kind)"))
        }
    }

    /// `#` starts a comment outside double quotes (inside them `\"` is a quote, not the end).
    static func stripComment(_ line: Substring) -> Substring {
        var inQuotes = false
        var escaped = false
        for position in line.indices {
            let character = line[position]
            if escaped {
                escaped = false
                continue
            }
            if inQuotes, character == "\\" {
                escaped = true
                continue
            }
            if character == "\"" { inQuotes.toggle() }
            if character == "#", !inQuotes,
                position == line.startIndex || line[line.index(before: position)] == " "
            {
                return line[..<position]
            }
        }
        return line
    }

    private func unexpectedIndent(_ line: Line) -> Diagnostic {
        Diagnostic(
            "Unexpected indentation",
            at: SourceRange(
                start: SourceLocation(line: line.number, column: line.indent + 1), length: line.content.count),
            detail: "this line is indented \(line.indent) spaces, which matches no block above it")
    }

    private func location(_ line: Line, _ position: Substring.Index) -> SourceLocation {
        SourceLocation(line: line.number, column: line.raw.distance(from: line.raw.startIndex, to: position) + 1)
    }

    /// A block of lines at exactly `indent`: all `key: value` (a mapping) or all `- item` (a list).
    private mutating func parseBlock(indent: Int) -> Result<Node, Diagnostic> {
        let first = lines[index]
        // Scenarios nest four levels deep; a limit keeps a hostile file from exhausting the stack.
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            return .failure(
                Diagnostic(
                    "Too deeply nested",
                    at: SourceRange(
                        start: location(first, first.content.startIndex), length: max(1, first.content.count)),
                    detail: "blocks nest at most \(Self.maximumDepth) levels deep"))
        }
        if first.content.hasPrefix("- ") || first.content == "-" {
            var items: [Node] = []
            while index < lines.count, lines[index].indent == indent {
                let line = lines[index]
                guard line.content.hasPrefix("- ") || line.content == "-" else {
                    return .failure(
                        Diagnostic(
                            "Mixed block",
                            at: SourceRange(start: location(line, line.content.startIndex), length: line.content.count),
                            detail: "a list item `- …` was expected here, as on line \(first.number)"))
                }
                switch parseItem(line) {
                case .failure(let diagnostic): return .failure(diagnostic)
                case .success(let node): items.append(node)
                }
            }
            return .success(
                .sequence(
                    Sequence(
                        items: items, range: SourceRange(start: location(first, first.content.startIndex), length: 1))))
        }
        var entries: [Mapping.Entry] = []
        while index < lines.count, lines[index].indent == indent {
            let line = lines[index]
            if line.content.hasPrefix("- ") {
                return .failure(
                    Diagnostic(
                        "Mixed block", at: SourceRange(start: location(line, line.content.startIndex), length: 1),
                        detail: "a `key: value` line was expected here, as on line \(first.number)"))
            }
            switch parseEntry(line, content: line.content, indent: indent) {
            case .failure(let diagnostic): return .failure(diagnostic)
            case .success(let entry):
                if let duplicate = Self.duplicate(entry, in: entries) { return .failure(duplicate) }
                entries.append(entry)
            }
        }
        return .success(
            .mapping(
                Mapping(
                    entries: entries, range: SourceRange(start: location(first, first.content.startIndex), length: 1))))
    }

    /// `key: value`, `key:` followed by a deeper block, or `key: |` followed by text.
    private mutating func parseEntry(_ line: Line, content: Substring, indent: Int) -> Result<Mapping.Entry, Diagnostic>
    {
        guard let colon = content.firstIndex(of: ":") else {
            return .failure(
                Diagnostic(
                    "Expected `key: value`",
                    at: SourceRange(start: location(line, content.startIndex), length: content.count),
                    detail: "no colon on this line"))
        }
        let key = content[..<colon].trimmingTrailingSpaces()
        let keyRange = SourceRange(start: location(line, content.startIndex), length: key.count)
        guard !key.isEmpty else {
            return .failure(Diagnostic("Missing key", at: keyRange, detail: "a line cannot start with a colon"))
        }
        let rest = content[content.index(after: colon)...]
        let value = rest.drop { $0 == " " }
        index += 1
        if value.isEmpty {
            guard index < lines.count, lines[index].indent > indent else {
                return .success(
                    Mapping.Entry(
                        key: String(key), keyRange: keyRange,
                        value: .scalar(
                            Scalar(text: "", range: SourceRange(start: location(line, rest.startIndex), length: 1)))))
            }
            return parseBlock(indent: lines[index].indent).map {
                Mapping.Entry(key: String(key), keyRange: keyRange, value: $0)
            }
        }
        if value.trimmingTrailingSpaces() == "|" {  // `| ` and `| # a comment` open a block too
            var text: [String] = []
            let start = index < lines.count ? lines[index] : line
            while index < lines.count, lines[index].indent > indent {
                text.append(String(lines[index].raw.dropFirst(min(lines[index].indent, start.indent))))
                index += 1
            }
            return .success(
                Mapping.Entry(
                    key: String(key), keyRange: keyRange,
                    value: .scalar(
                        Scalar(
                            text: text.joined(separator: "\n"),
                            range: SourceRange(start: location(line, value.startIndex), length: 1)))))
        }
        return scalarOrList(line, value).map { Mapping.Entry(key: String(key), keyRange: keyRange, value: $0) }
    }

    /// `- value`, or `- key: value` opening a mapping whose other keys line up after the dash.
    private mutating func parseItem(_ line: Line) -> Result<Node, Diagnostic> {
        let content = line.content.dropFirst(1).drop { $0 == " " }
        let itemIndent = line.indent + (line.content.count - content.count)
        if content.isEmpty {
            index += 1
            guard index < lines.count, lines[index].indent > line.indent else {
                return .failure(
                    Diagnostic(
                        "Empty list item", at: SourceRange(start: location(line, line.content.startIndex), length: 1),
                        detail: "write a value after `- `"))
            }
            return parseBlock(indent: lines[index].indent)
        }
        if Self.looksLikeEntry(content) {
            var entries: [Mapping.Entry] = []
            switch parseEntry(line, content: content, indent: itemIndent) {
            case .failure(let diagnostic): return .failure(diagnostic)
            case .success(let entry): entries.append(entry)
            }
            if index < lines.count, lines[index].indent == itemIndent, !lines[index].content.hasPrefix("- ") {
                switch parseBlock(indent: itemIndent) {
                case .failure(let diagnostic): return .failure(diagnostic)
                case .success(.mapping(let more)):
                    for entry in more.entries {
                        if let duplicate = Self.duplicate(entry, in: entries) { return .failure(duplicate) }
                        entries.append(entry)
                    }
                case .success(let other):
                    return .failure(
                        Diagnostic("Mixed block", at: other.range, detail: "expected more `key: value` lines"))
                }
            }
            return .success(
                .mapping(
                    Mapping(entries: entries, range: SourceRange(start: location(line, content.startIndex), length: 1)))
            )
        }
        index += 1
        return scalarOrList(line, content)
    }

    /// A key may appear once per block.
    static func duplicate(_ entry: Mapping.Entry, in entries: [Mapping.Entry]) -> Diagnostic? {
        guard let previous = entries.first(where: { $0.key == entry.key }) else { return nil }
        return Diagnostic(
            "Duplicate key", at: entry.keyRange,
            detail: "<\(entry.key)> was already given on line \(previous.keyRange.start.line)")
    }

    /// A colon followed by a space or the end, outside quotes and brackets, makes a `key: value`.
    static func looksLikeEntry(_ text: Substring) -> Bool {
        guard let first = text.first, first != "\"", first != "[" else { return false }
        guard let colon = text.firstIndex(of: ":") else { return false }
        let after = text.index(after: colon)
        return after == text.endIndex || text[after] == " "
    }

    private func scalarOrList(_ line: Line, _ value: Substring) -> Result<Node, Diagnostic> {
        let trimmed = value.trimmingTrailingSpaces()
        let start = location(line, value.startIndex)
        if trimmed.hasPrefix("[") {
            guard trimmed.hasSuffix("]") else {
                return .failure(
                    Diagnostic(
                        "Unclosed list", at: SourceRange(start: start, length: trimmed.count),
                        detail: "an inline list ends with `]`"))
            }
            var items: [Node] = []
            let inner = trimmed.dropFirst().dropLast()
            // Columns counted as the parts go by: measuring each from the line's start is quadratic.
            var column = start.column + 1
            for part in inner.split(separator: ",", omittingEmptySubsequences: false) {
                let leading = part.prefix { $0 == " " }.count
                let item = part.dropFirst(leading).trimmingTrailingSpaces()
                if !item.isEmpty {
                    let itemStart = SourceLocation(line: line.number, column: column + leading)
                    guard let text = Self.unquote(item) else { return .failure(Self.badQuote(item, at: itemStart)) }
                    items.append(.scalar(Scalar(text: text, range: SourceRange(start: itemStart, length: item.count))))
                }
                column += part.count + 1
            }
            return .success(.sequence(Sequence(items: items, range: SourceRange(start: start, length: trimmed.count))))
        }
        guard let text = Self.unquote(trimmed) else { return .failure(Self.badQuote(trimmed, at: start)) }
        return .success(.scalar(Scalar(text: text, range: SourceRange(start: start, length: trimmed.count))))
    }

    static func badQuote(_ text: Substring, at start: SourceLocation) -> Diagnostic {
        Diagnostic(
            "Unclosed quote", at: SourceRange(start: start, length: text.count),
            detail: "a value that starts with `\"` is one quoted string, ending with the next unescaped `\"`")
    }

    /// A value as written, or the inside of a quoted one with `\"` and `\\` unescaped; nil when a
    /// quoted value does not end at its closing quote (`"a" "b"` is not one string).
    static func unquote(_ text: Substring) -> String? {
        guard text.hasPrefix("\"") else { return String(text) }
        var out = ""
        var escaped = false
        var closed = false
        for character in text.dropFirst() {
            if closed { return nil }
            if escaped {
                out.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                closed = true
            } else {
                out.append(character)
            }
        }
        return closed ? out : nil
    }
}

extension Substring {
    func trimmingTrailingSpaces() -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " { end = index(before: end) }
        return self[startIndex..<end]
    }
}
