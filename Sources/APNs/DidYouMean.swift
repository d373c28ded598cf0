/// "Did you mean": shared by every surface that refuses a word from outside — the scenario checker,
/// the command line, `explain` and the control API — so each suggests the same way.
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
