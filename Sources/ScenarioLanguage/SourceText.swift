/// A position in a scenario file: 1-based line and column (columns count characters).
public struct SourceLocation: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool { (a.line, a.column) < (b.line, b.column) }
    public var description: String { "\(line):\(column)" }
}

/// A span on one line, for carets under what is wrong.
public struct SourceRange: Sendable, Equatable {
    public var start: SourceLocation
    /// Characters underlined, at least 1.
    public var length: Int

    public init(start: SourceLocation, length: Int) {
        self.start = start
        self.length = max(1, length)
    }
}

/// A scenario file's text, kept for diagnostics (the source line under the error).
public struct SourceFile: Sendable {
    public var path: String
    public var text: String
    public let lines: [Substring]
    /// Why the file could not be read (too large, not a regular file): it is one scenario that does
    /// not check, and the others in its folder still run (issue 46).
    public var unreadable: String?

    /// A file that could not be read, standing in the run for the scenario it was meant to be.
    public init(path: String, unreadable: String) {
        self.init(path: path, text: "")
        self.unreadable = unreadable
    }

    public init(path: String, text: String) {
        self.path = path
        // A byte-order mark is not part of the first key; CR LF ends a line as LF does (Swift sees
        // "\r\n" as one Character, which a split on "\n" would miss).
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        self.text = text
        // Split on the bytes (a line feed never joins another character: Unicode's grapheme rule GB4).
        var lines: [Substring] = []
        let bytes = text.utf8
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            var end = index
            if end > start, bytes[bytes.index(before: end)] == UInt8(ascii: "\r") { end = bytes.index(before: end) }
            lines.append(text[start..<end])
            start = bytes.index(after: index)
        }
        lines.append(text[start...])
        self.lines = lines
    }

    public func line(_ number: Int) -> Substring { lines.indices.contains(number - 1) ? lines[number - 1] : "" }
}
