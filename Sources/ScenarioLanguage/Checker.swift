import APNs
import World

/// Lowers a parsed scenario into a `ScenarioPlan`, or says what is wrong with it: unknown keys and
/// values get "did you mean", references (phones, apps, users, call names, placeholders) are
/// resolved, numbers are numbers in their ranges. No I/O. The only code that reads a scenario's keys.
public struct Checker {
    /// Every problem in the file, by position (empty when it checks).
    public static func check(_ file: SourceFile) -> [Diagnostic] { plan(file).diagnostics }

    /// The file's plan when it checks, and its problems.
    /// `provider`: the provider under test (`run --provider-file`), which a scenario that names none
    /// (a requirement) is checked and run against; a scenario that names its own (a demonstration)
    /// keeps it, and `ScenarioPlan.pinsProvider` says so.
    public static func plan(_ file: SourceFile, provider: ProviderUnderTest? = nil) -> (
        plan: ScenarioPlan?, diagnostics: [Diagnostic]
    ) {
        if let unreadable = file.unreadable {
            return (
                nil,
                [
                    Diagnostic(
                        "Unreadable file", at: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1),
                        detail: unreadable)
                ]
            )
        }
        switch Parser.parse(file) {
        case .failure(let diagnostic): return (nil, [diagnostic])
        case .success(let root):
            var lowering = Lowering(lines: file.lines.map(String.init))
            lowering.providerUnderTest = provider
            let plan = lowering.lower(root)
            let problems = lowering.problems.sorted { $0.range.start < $1.range.start }
            return (problems.isEmpty ? plan : nil, problems)
        }
    }
}

extension Checker {
    /// Whether the file is a provider file (`--provider-file`): its only top-level key is `provider`.
    public static func isProviderFile(_ file: SourceFile) -> Bool {
        guard case .success(let root) = Parser.parse(file) else { return false }
        return root.entries.map(\.key) == Schema.providerFile
    }

    /// A provider file's provider (`run --provider-file FILE`), or what is wrong with it. `{dir}` in
    /// its commands is the file's folder.
    public static func providerFile(_ file: SourceFile, directory: String) -> (
        provider: ProviderUnderTest?, diagnostics: [Diagnostic]
    ) {
        switch Parser.parse(file) {
        case .failure(let diagnostic): return (nil, [diagnostic])
        case .success(let root):
            var lowering = Lowering(lines: file.lines.map(String.init))
            let provider = lowering.lowerProviderFile(root, directory: directory)
            let problems = lowering.problems.sorted { $0.range.start < $1.range.start }
            return (problems.isEmpty ? provider : nil, problems)
        }
    }
}

/// One pass over the syntax tree, collecting problems as it goes and what later steps may refer to.
struct Lowering {
    /// The file's lines, to place what a value's text alone cannot (placeholders in `|` blocks).
    let lines: [String]
    var problems: [Diagnostic] = []

    init(lines: [String]) { self.lines = lines }
    /// `apns: transport: cleartext`: no TLS, so no certificate to change.
    var cleartext = false
    var phones: [String: PhoneRef] = [:]
    /// The phones' names as messages list them (kept: a file may name thousands).
    var phoneNames = ""
    var appsOfPhone: [Int: [String]] = [:]
    /// Users registered so far, with the phones they registered.
    var users: [String: Set<Int>] = [:]
    /// Calls named with `as:` so far, the user each rang and the phones that user had registered.
    var calls: [String: (user: String, phones: Set<Int>)] = [:]
    /// Callers each phone's user blocked so far (a `block` step adds to them).
    var blocked: [Int: Set<String>] = [:]
    /// Apps uninstalled so far (the world removes them: nothing more can happen to them), by phone,
    /// with the line that uninstalled each.
    var uninstalled: [Int: [String: Int]] = [:]
    /// Each phone's registrations not yet unregistered, by app, the latest last, numbered in order.
    var registrations: [Int: [String: [(user: String, kind: TokenKind, order: Int)]]] = [:]
    var registrationCount = 0
    /// `load` steps so far (a scenario runs one).
    var loadCount = 0
    /// `fault … at:` lines not yet followed by a load: each must be (the load's timeline is theirs).
    var timedFaults: [(range: SourceRange, at: Double)] = []

    /// The latest registration of a phone (of `app`, when given), removed when `remove`.
    mutating func latestRegistration(of phone: Int, app: String?, remove: Bool) -> (
        user: String, app: String, kind: TokenKind
    )? {
        let apps = registrations[phone] ?? [:]
        let candidates = app.map { [$0] } ?? Array(apps.keys)
        guard
            let bundle = candidates.filter({ apps[$0]?.last != nil }).max(by: {
                apps[$0]!.last!.order < apps[$1]!.last!.order
            }),
            let latest = apps[bundle]?.last
        else { return nil }
        if remove { registrations[phone]?[bundle]?.removeLast() }
        return (latest.user, bundle, latest.kind)
    }
    var provider: ProviderSetup = .builtin(.reference)
    /// The provider the scenario is run against instead of the built-in one when it names none.
    var providerUnderTest: ProviderUnderTest?
    /// Whether `provider` is `providerUnderTest` (the scenario is a requirement run against it).
    var runsProviderUnderTest = false
    /// Why a requirement cannot be judged against the provider under test (a template it lacks).
    var notApplicable: [String] = []

    // MARK: Reading blocks

    /// A mapping's entries, with any key outside `keys` refused.
    struct Block {
        let mapping: Mapping
        let keys: [String]

        func node(_ key: String) -> Node? {
            precondition(keys.contains(key), "the checker reads <\(key)>, which the schema does not list")
            return mapping.value(key)
        }

        func entry(_ key: String) -> Mapping.Entry? {
            precondition(keys.contains(key), "the checker reads <\(key)>, which the schema does not list")
            return mapping.entries.first { $0.key == key }
        }

        func has(_ key: String) -> Bool { node(key) != nil }
    }

    mutating func open(_ mapping: Mapping, keys: [String], context: String) -> Block {
        for entry in mapping.entries where !keys.contains(entry.key) {
            report(
                "Unknown key", at: entry.keyRange, "<\(clip(entry.key))> is not a key of \(context)",
                suggestion: didYouMean(entry.key, among: keys))
        }
        return Block(mapping: mapping, keys: keys)
    }

    mutating func report(_ title: String, at range: SourceRange, _ detail: String, suggestion: String? = nil) {
        problems.append(Diagnostic(title, at: range, detail: detail, suggestion: suggestion))
    }

    /// A value quoted in a message, cut short: a megabyte of typo is not worth repeating.
    func clip(_ text: String) -> String { text.count > 60 ? String(text.prefix(57)) + "…" : text }

    mutating func scalar(_ block: Block, _ key: String) -> Scalar? {
        guard let node = block.node(key) else { return nil }
        guard case .scalar(let scalar) = node else {
            report("Wrong shape", at: node.range, "<\(key)> takes a value, found \(node.kind)")
            return nil
        }
        return scalar
    }

    mutating func text(_ block: Block, _ key: String) -> String? { scalar(block, key)?.text }

    mutating func boolean(_ scalar: Scalar, key: String) -> Bool? {
        switch scalar.text {
        case "true", "yes": return true
        case "false", "no": return false
        default:
            report(
                "Not true or false", at: scalar.range, "<\(key)> takes true or false, got <\(clip(scalar.text))>",
                suggestion: didYouMean(scalar.text, among: ["true", "false"]))
            return nil
        }
    }

    mutating func boolean(_ block: Block, _ key: String) -> Bool? {
        scalar(block, key).flatMap { boolean($0, key: key) }
    }

    mutating func integer(_ scalar: Scalar, key: String, in range: ClosedRange<Int>) -> Int? {
        let digits = !scalar.text.isEmpty && scalar.text.allSatisfy { $0.isASCII && $0.isNumber }
        guard digits, let value = Int(scalar.text), range.contains(value) else {
            report(
                digits && Int(scalar.text) != nil ? "Out of range" : "Not a whole number", at: scalar.range,
                "<\(key)> takes a whole number from \(range.lowerBound) to \(range.upperBound), got <\(clip(scalar.text))>"
            )
            return nil
        }
        return value
    }

    mutating func integer(_ block: Block, _ key: String, in range: ClosedRange<Int>) -> Int? {
        scalar(block, key).flatMap { integer($0, key: key, in: range) }
    }

    mutating func duration(_ scalar: Scalar, key: String, atMost limit: Double = longestDuration) -> Double? {
        guard let seconds = parseDuration(scalar.text), seconds <= limit else {
            let most = ValueKind.written(limit)
            report(
                "Not a duration", at: scalar.range,
                "<\(key)> takes a duration like <250ms>, <30s>, <5m>, <2h> or <1d>, at most \(most); got <\(clip(scalar.text))>"
            )
            return nil
        }
        return seconds
    }

    mutating func duration(_ block: Block, _ key: String, atMost limit: Double = longestDuration) -> Double? {
        scalar(block, key).flatMap { duration($0, key: key, atMost: limit) }
    }

    /// An option read as its declaration says (`Vocabulary`): a number in its range, a duration
    /// within its limit, a boolean.
    mutating func integer(_ block: Block, _ option: Option) -> Int? {
        guard case .number(let range) = option.takes else { preconditionFailure("<\(option.key)> is no number") }
        return integer(block, option.key, in: range)
    }

    mutating func duration(_ block: Block, _ option: Option) -> Double? {
        guard case .duration(let most) = option.takes else { preconditionFailure("<\(option.key)> is no duration") }
        return duration(block, option.key, atMost: most)
    }

    mutating func boolean(_ block: Block, _ option: Option) -> Bool? {
        precondition(option.takes == .boolean, "<\(option.key)> is no boolean")
        return boolean(block, option.key)
    }

    /// A word from a vocabulary: the enum's raw values are the only words.
    mutating func word<Word: RawRepresentable & CaseIterable>(_ scalar: Scalar, key: String, _ type: Word.Type) -> Word?
    where Word.RawValue == String {
        if let word = Word(rawValue: scalar.text) { return word }
        let choices = Word.allCases.map(\.rawValue)
        report(
            "Unknown value", at: scalar.range,
            "<\(key)> takes one of \(choices.joined(separator: ", ")); got <\(clip(scalar.text))>",
            suggestion: didYouMean(scalar.text, among: choices))
        return nil
    }

    mutating func word<Word: RawRepresentable & CaseIterable>(_ block: Block, _ key: String, _ type: Word.Type) -> Word?
    where Word.RawValue == String {
        scalar(block, key).flatMap { word($0, key: key, type) }
    }

    /// The scalars of a list value (`[a, b]`, a `- item` list, or one value); other shapes refused.
    mutating func listItems(_ block: Block, _ key: String, what: String) -> [Scalar] {
        guard let node = block.node(key) else { return [] }
        let items: [Node]
        switch node {
        case .sequence(let sequence): items = sequence.items
        case .scalar: items = [node]
        case .mapping:
            report("Wrong shape", at: node.range, "<\(key)> takes a list of \(what)")
            return []
        }
        return items.compactMap { item in
            guard case .scalar(let scalar) = item else {
                report("Wrong shape", at: item.range, "<\(key)> takes \(what)")
                return nil
            }
            return scalar
        }
    }

    /// A list of words from a vocabulary.
    mutating func words<Word: RawRepresentable & CaseIterable>(
        _ block: Block, _ key: String, _ type: Word.Type, what: String
    ) -> [Word] where Word.RawValue == String {
        listItems(block, key, what: what).compactMap { word($0, key: key, Word.self) }
    }

    /// A list of names (`[bob, carol]`, or one name).
    mutating func names(_ block: Block, _ key: String, what: String) -> [String] {
        listItems(block, key, what: what).compactMap { isName($0, what: what) ? $0.text : nil }
    }

    /// An APNs reason, spelled as on the wire.
    mutating func reason(_ scalar: Scalar, key: String) -> Reason? {
        if let reason = Reason(rawValue: scalar.text) { return reason }
        report(
            "Unknown reason", at: scalar.range, "<\(clip(scalar.text))> is not an APNs reason (`ringside explain`)",
            suggestion: Reason(wire: scalar.text)?.wire ?? didYouMean(scalar.text, among: Reason.allCases.map(\.wire)))
        return nil
    }

    // MARK: The file

    mutating func lower(_ root: Mapping) -> ScenarioPlan {
        let top = open(root, keys: Schema.top, context: "a scenario")
        for key in Schema.required where !top.has(key) {
            report("Missing key", at: root.range, "a scenario needs <\(key)>")
        }
        var plan = ScenarioPlan(name: text(top, "scenario") ?? "")
        if let name = top.entry("scenario"), plan.name.allSatisfy({ $0 == " " }), case .scalar = name.value {
            report("Empty name", at: name.keyRange, "<scenario> names what the scenario shows; reports list it")
        }
        plan.teaches = text(top, "teaches")
        if let scalar = scalar(top, "obligation") {
            if scalar.text.isEmpty || scalar.text.count > 200 || scalar.text.contains(where: \.isNewline) {
                report(
                    "Not an obligation", at: scalar.range,
                    "<obligation> takes one line of at most 200 characters: what the provider must do")
            } else {
                plan.obligation = scalar.text
            }
        }
        plan.basis = word(top, "basis", Basis.self)
        if let seed = scalar(top, "seed") {
            if seed.text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt64(seed.text) {
                plan.seed = value
            } else {
                report("Not a seed", at: seed.range, "<seed> takes a whole number ≥ 0, got <\(clip(seed.text))>")
            }
        }
        if let node = top.node("provider") {
            provider = lowerProvider(node, inProviderFile: false)
            plan.settlesWithin = providerSettlesWithin ?? provider.defaultSettlesWithin
            // Naming the reference provider, the default, is no demonstration (the README's example).
            if case .builtin(.reference) = provider {} else { plan.pinsProvider = true }
        }
        if let node = top.node("apns") { plan.apns = lowerAPNs(node) }
        if let providerUnderTest, !plan.pinsProvider || providerUnderTest.alsoDemonstrations {
            provider = providerUnderTest.setup
            plan.settlesWithin = providerUnderTest.settlesWithin ?? provider.defaultSettlesWithin
            runsProviderUnderTest = true
            // The built-in provider authenticates as each requirement says; another as its file says.
            var isBuiltin = false
            if case .builtin = providerUnderTest.setup { isBuiltin = true }
            if !isBuiltin, let declared = plan.apns.declaredAuthentication, declared != providerUnderTest.authentication
            {
                notApplicable.append(
                    "written for \(declared.rawValue) authentication; the provider authenticates with \(providerUnderTest.authentication.rawValue)"
                )
            }
        }
        plan.provider = provider
        if let node = top.node("world") { plan.world = lowerWorld(node) }
        // Where the app reads the call: the provider's (its file's, when it is under test).
        plan.world.settings.callPaths =
            runsProviderUnderTest ? providerUnderTest?.callPaths : providerCallPaths
        if let node = top.node("phones") { plan.phones = lowerPhones(node, environment: plan.apns.environment) }
        if let node = top.node("steps") {
            if case .sequence(let sequence) = node {
                if sequence.items.isEmpty {
                    report("No steps", at: node.range, "a scenario needs at least one step")
                }
                plan.steps = sequence.items.compactMap { lowerStep($0) }
                for fault in timedFaults {
                    report(
                        "No load after it", at: fault.range,
                        "<at> arms the fault on the timeline of the scenario's load: write the `load` step after it")
                }
            } else {
                report("Wrong shape", at: node.range, "<steps> takes a list of `- ` items, found \(node.kind)")
            }
        }
        plan.notApplicable = notApplicable
        return plan
    }

    /// A provider file (`run --provider-file`): a `provider:` section in scenario syntax, with
    /// `auth:` saying how the provider authenticates.
    mutating func lowerProviderFile(_ root: Mapping, directory: String) -> ProviderUnderTest {
        let top = open(root, keys: Schema.providerFile, context: "a provider file")
        guard let node = top.node("provider") else {
            report("Missing key", at: root.range, "a provider file needs <provider:>, as a scenario writes it")
            return ProviderUnderTest(setup: .builtin(.reference), directory: directory)
        }
        var result = ProviderUnderTest(setup: lowerProvider(node, inProviderFile: true), directory: directory)
        result.authentication = providerFileAuthentication ?? .token
        result.settlesWithin = providerSettlesWithin
        result.callPaths = providerCallPaths
        return result
    }
    var providerFileAuthentication: ProviderAuthentication?
    /// `settles-within:` under `provider:`, in a scenario or a provider file.
    var providerSettlesWithin: Double?
    /// `call-id-at:` and `caller-at:` under `provider:`.
    var providerCallPaths: CallPaths?
    /// The longest a provider may declare: the scenario's end waits it out.
    static let longestSettling = 300.0

    mutating func mapping(_ node: Node, key: String) -> Mapping? {
        if case .mapping(let mapping) = node { return mapping }
        report("Wrong shape", at: node.range, "<\(key)> takes a block of `key: value` lines, found \(node.kind)")
        return nil
    }

    /// The items of a list of blocks (`phones:`, `apps:`), each opened with `keys` and its required
    /// `first` key read; an item that is not a block or lacks that key is reported and left out.
    mutating func items(
        of node: Node, key: String, first: String, keys: [String], noun: String, context: String
    ) -> [(block: Block, first: Scalar)] {
        guard case .sequence(let sequence) = node else {
            report("Wrong shape", at: node.range, "<\(key)> takes a list of `- ` items, found \(node.kind)")
            return []
        }
        var items: [(block: Block, first: Scalar)] = []
        for item in sequence.items {
            guard case .mapping(let mapping) = item else {
                report("Expected a block", at: item.range, "each \(noun) is `- \(first): …` with its keys below")
                continue
            }
            let block = open(mapping, keys: keys, context: context)
            guard let value = scalar(block, first) else {
                report("Missing key", at: mapping.range, "\(context) needs <\(first)>")
                continue
            }
            items.append((block, value))
        }
        return items
    }

    // MARK: References

    /// Names go into shell commands and JSON as they are (`{user}`): letters, digits and `+ . _ @ -`.
    mutating func isName(_ scalar: Scalar, what: String) -> Bool {
        let text = scalar.text
        if !text.isEmpty, text.count <= 64,
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+._@-".contains($0)) })
        {
            return true
        }
        report(
            "Not a name", at: scalar.range,
            "\(what) is letters, digits and + . _ @ - (at most 64), got <\(clip(text))>")
        return false
    }

    /// Names listed in a message: up to ten, sorted; beyond fifty only how many (sorting thousands for
    /// every message would make a large file quadratic to check).
    func listed(_ names: some Collection<String>) -> String {
        if names.count > 50 { return "\(names.count) names" }
        let sorted = names.sorted()
        return sorted.prefix(10).joined(separator: ", ") + (sorted.count > 10 ? ", … (\(sorted.count) in all)" : "")
    }

    mutating func phone(_ scalar: Scalar) -> PhoneRef? {
        if let phone = phones[scalar.text] { return phone }
        report(
            "Unknown phone", at: scalar.range,
            phones.isEmpty
                ? "no phone is named <\(clip(scalar.text))>: this scenario has no `phones:`"
                : "no phone is named <\(clip(scalar.text))>; phones are \(phoneNames)",
            suggestion: didYouMean(scalar.text, among: Array(phones.keys)))
        return nil
    }

    /// Whether an app is still on the phone; reported when a step names one uninstalled before (the
    /// world removes it: a step on it would do nothing).
    mutating func isInstalled(_ bundle: String, on phone: PhoneRef, at range: SourceRange) -> Bool {
        guard let line = uninstalled[phone.index]?[bundle] else { return true }
        report(
            "Not installed", at: range,
            "<\(clip(bundle))> was uninstalled from \(phone.name) at line \(line); nothing more can happen to it")
        return false
    }

    /// The app a step names on a phone, or the phone's first app.
    mutating func app(_ block: Block, of phone: PhoneRef) -> String {
        let bundles = appsOfPhone[phone.index] ?? [ScenarioPlan.testBundleId]
        guard let scalar = scalar(block, "app") else { return bundles[0] }
        if bundles.contains(scalar.text) { return scalar.text }
        report(
            "Unknown app", at: scalar.range,
            "\(phone.name) has no app <\(clip(scalar.text))>; its apps are \(listed(bundles))",
            suggestion: didYouMean(scalar.text, among: bundles))
        return bundles[0]
    }

    mutating func user(_ scalar: Scalar) -> String? {
        if users[scalar.text] != nil { return scalar.text }
        report(
            "Unknown user", at: scalar.range,
            users.isEmpty
                ? "no user <\(clip(scalar.text))> was registered before this step (`- register: PHONE`, `as: USER`)"
                : "no user <\(clip(scalar.text))> was registered before this step; users are \(listed(users.keys))",
            suggestion: didYouMean(scalar.text, among: Array(users.keys)))
        return nil
    }

    /// The http template a step needs, reported at the step when the provider lacks it.
    mutating func needsTemplate(_ key: String, _ template: RequestTemplate?, at range: SourceRange) {
        // A requirement's step the provider file has no template for fails at run time (a
        // provider that cannot be told of a logout cannot forget the token): not a check error.
        if case .http = provider, template == nil, !runsProviderUnderTest {
            report("No template", at: range, "the http provider has no <\(key):> request template for this step")
        }
    }

    // MARK: Steps

    mutating func lowerStep(_ node: Node) -> Step? {
        guard case .mapping(let mapping) = node, let first = mapping.entries.first else {
            report(
                "Expected a step", at: node.range,
                "a step is `- kind: value`, e.g. <- call: alice>; kinds are \(Schema.steps.keys.sorted().joined(separator: ", "))"
            )
            return nil
        }
        guard let kind = Vocabulary.stepsByName[first.key] else {
            report(
                "Unknown step", at: first.keyRange, "<\(clip(first.key))> is not a step",
                suggestion: didYouMean(first.key, among: Schema.steps.keys.sorted()))
            return nil
        }
        guard case .scalar(let argument) = first.value else {
            report(
                "Wrong shape", at: first.value.range,
                "<\(first.key)> takes a value on its line, found \(first.value.kind)")
            return nil
        }
        let block = open(
            Mapping(entries: Array(mapping.entries.dropFirst()), range: mapping.range), keys: kind.options.map(\.key),
            context: "a <\(first.key)> step")
        let range = first.keyRange
        let action = kind.lower(&self, StepInput(argument: argument, block: block, range: range))
        return action.map { Step(action: $0, range: range) }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = drop { $0 == " " }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
