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

/// The nearest candidate by edit distance, when near enough to be a typo.
public func didYouMean(_ word: String, among candidates: [String]) -> String? {
    // A word far longer than every candidate is no typo of one; comparing it would cost its length squared.
    guard word.count <= 64 else { return nil }
    // Hundreds of names are no list of typos to choose from, and comparing against each for every
    // reference would make checking a large file quadratic.
    guard candidates.count <= 200 else { return nil }
    func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
    let limit = max(2, word.count / 3)
    let letters = Array(word.lowercased())
    // A candidate whose length differs by more than the limit cannot be within it.
    let scored = candidates.filter { abs($0.count - word.count) <= limit }.map {
        ($0, distance(letters, Array($0.lowercased())))
    }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit else { return nil }
    return best.0
}
