import APNs

/// The keys a scenario file may use, block by block. The checker reads only these (asking for any
/// other is a programming error it traps on), refuses any other with "did you mean", and takes the
/// values from the vocabularies they name (reasons, outcomes, profiles, fault actions …), never a
/// copy. `docs/scenario-language.md` describes them; `SchemaCoverageTests` shows that each changes a
/// verdict.
public enum Schema {
    /// Each block's keys, from its declaration in `Blocks/` (an app's: World/AppDescription.swift).
    public static let top = TopBlock.keys.map(\.key)
    public static let required = TopBlock.required
    public static let apns = APNsBlock.keys.map(\.key)
    public static let world = WorldBlock.keys.map(\.key)
    public static let phone = PhoneBlock.keys.map(\.key)
    public static let app = PhoneBlock.appKeys.map(\.key)
    public static let provider = ProviderBlock.keys.map(\.key)
    /// A provider file (`run --provider-file`) holds a `provider:` section only.
    public static let providerFile = ["provider"]

    /// Every block with its keys' declarations, by the name `Keywords` and `explain` use.
    static let blocks: [(name: String, keys: [Option])] = [
        ("top", TopBlock.keys), ("apns", APNsBlock.keys), ("world", WorldBlock.keys), ("phone", PhoneBlock.keys),
        ("app", PhoneBlock.appKeys), ("provider", ProviderBlock.keys),
    ]

    /// Each step is one `kind: value` line, with these options below it (declared in `Vocabulary`).
    public static let steps: [String: [String]] = Dictionary(
        uniqueKeysWithValues: Vocabulary.steps.map { ($0.name, $0.options.map(\.key)) })
}

/// `3 per 60s` → (3, 60); `off` → (0, 0), meaning no limit; nil when malformed.
public func parseRate(_ text: String) -> (count: Int, window: Double)? {
    if text == "off" { return (0, 0) }
    let parts = text.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 3, parts[1] == "per", let count = Int(parts[0]), (1...1_000_000).contains(count),
        let window = parseDuration(String(parts[2])), window > 0
    else { return nil }
    return (count, window)
}

/// The longest duration a scenario may write: ten years, far beyond any rule of APNs or the phone,
/// small enough that world-time arithmetic stays exact.
public let longestDuration = 10 * 365 * 86_400.0

/// A duration such as `250ms`, `30s`, `5m`, `2h`, `1d`: seconds, or nil (also beyond ten years).
public func parseDuration(_ text: String) -> Double? {
    guard text.utf8.count <= 24 else { return nil }
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
    for (unit, factor) in units where text.hasSuffix(unit) {
        let number = text.dropLast(unit.count)
        if !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number),
            value.isFinite, value >= 0, value * factor <= longestDuration
        {
            return value * factor
        }
    }
    return nil
}
