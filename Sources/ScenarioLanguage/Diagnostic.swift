import APNs

/// Something wrong in a scenario file, rendered as hurl does: a title, `--> file:line:col`, the source
/// line, carets under the span, a detail quoting values as `<value>`, and "did you mean"
/// (docs/architecture.md, "Errors people read").
public struct Diagnostic: Error, Sendable, Equatable {
    public var title: String
    public var range: SourceRange
    public var detail: String
    public var suggestion: String?

    public init(_ title: String, at range: SourceRange, detail: String, suggestion: String? = nil) {
        self.title = title
        self.range = range
        self.detail = detail
        self.suggestion = suggestion
    }

    /// The diagnostic as the user reads it.
    public func render(in file: SourceFile) -> String {
        let number = String(range.start.line)
        let gutter = String(repeating: " ", count: number.count)
        let source = file.line(range.start.line)
        let caretPad = String(repeating: " ", count: max(0, range.start.column - 1))
        var detail = detail
        if let suggestion { detail += "; did you mean <\(suggestion)>?" }
        // The file's name, its line and the values quoted in the detail are outside text.
        let visible = OutsideText.visible
        return """
            error: \(visible(title))
            \(gutter)--> \(visible(file.path)):\(range.start.line):\(range.start.column)
            \(gutter) |
            \(number) | \(visible(String(source)))
            \(gutter) | \(caretPad)\(String(repeating: "^", count: range.length)) \(visible(detail))
            \(gutter) |
            """
    }
}
