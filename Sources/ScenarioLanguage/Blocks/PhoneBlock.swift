import APNs
import World

/// `phones:` — the virtual phones and their apps: a phone's keys declared here, an app's in
/// World/AppDescription.swift (shared with the control API); `Schema`, `Keywords` and `explain`
/// read both.
enum PhoneBlock {
    static let context = "a phone"
    static let appContext = "an app"
    static let keys: [Option] = [
        Option("name", .name, "the name steps call the phone by"),
        Option("online", .boolean, "whether the phone is reachable at the start (default true)"),
        Option("apps", .text, "the phone's apps (default one: com.ringside.testapp)"),
    ]
    /// An app's keys, as a scenario writes them.
    static let appKeys: [Option] = AppKey.allCases.map { Option($0.scenarioKey, $0.takes.valueKind, $0.meaning) }
}

extension AppValueKind {
    /// What `explain` says the key takes.
    var valueKind: ValueKind {
        switch self {
        case .text: .text
        case .version: .text
        case .word(let words): .choice(words)
        case .seconds(let most): .duration(atMost: most)
        case .boolean: .boolean
        }
    }
}

extension Lowering {
    mutating func lowerPhones(_ node: Node, environment: APNsEnvironment) -> [PhonePlan] {
        var result: [PhonePlan] = []
        for (block, nameScalar) in items(
            of: node, key: "phones", first: "name", keys: Schema.phone, noun: "phone", context: PhoneBlock.context)
        {
            let name = nameScalar.text
            if !isName(nameScalar, what: "a phone's name") { continue }
            if phones[name] != nil {
                report("Duplicate phone", at: nameScalar.range, "another phone is already named <\(clip(name))>")
                continue
            }
            var apps: [AppSpec] = []
            if let appsNode = block.node("apps") {
                apps = lowerApps(appsNode, environment: environment)
            }
            if apps.isEmpty { apps = [AppSpec(bundleId: ScenarioPlan.testBundleId, environment: environment)] }
            let reference = PhoneRef(index: result.count, name: name)
            phones[name] = reference
            appsOfPhone[reference.index] = apps.map(\.bundleId)
            result.append(
                PhonePlan(name: name, online: boolean(block, "online") ?? true, apps: apps, range: nameScalar.range))
        }
        phoneNames = listed(phones.keys)
        return result
    }

    /// A phone's apps, each read through `AppDescription` (World/AppDescription.swift), as the
    /// control API reads them: one reader, one set of checks, the scenario's spelling of each key.
    mutating func lowerApps(_ node: Node, environment: APNsEnvironment) -> [AppSpec] {
        var specs: [AppSpec] = []
        for (block, bundle) in items(
            of: node, key: "apps", first: AppKey.bundle.scenarioKey, keys: Schema.app, noun: "app",
            context: PhoneBlock.appContext)
        {
            if specs.count == VirtualPhone.maximumApps {
                report("Too many apps", at: bundle.range, "a phone holds at most \(VirtualPhone.maximumApps) apps")
                break
            }
            if specs.contains(where: { $0.bundleId == bundle.text }) {
                report("Duplicate app", at: bundle.range, "this phone already has <\(clip(bundle.text))>")
            }
            var values: [AppKey: AppValue] = [:]
            var placed: [AppKey: (key: SourceRange, value: SourceRange)] = [:]
            for key in AppKey.allCases {
                guard let entry = block.entry(key.scenarioKey), let scalar = scalar(block, key.scenarioKey) else {
                    continue
                }
                placed[key] = (entry.keyRange, scalar.range)
                switch key.takes {
                case .seconds(let most):
                    if let seconds = duration(scalar, key: key.scenarioKey, atMost: most) {
                        values[key] = .seconds(seconds)
                    }
                case .boolean:
                    if let flag = boolean(scalar, key: key.scenarioKey) { values[key] = .boolean(flag) }
                case .text, .version, .word:
                    values[key] = .text(scalar.text)
                }
            }
            let (spec, problems) = AppDescription.spec(values, environment: environment)
            for problem in problems {
                let at = placed[problem.key].map { problem.aboutTheKey ? $0.key : $0.value } ?? bundle.range
                report(problem.title, at: at, problem.message, suggestion: problem.suggestion)
            }
            // Kept when wrong too, so that steps naming it are not refused as well.
            specs.append(spec ?? AppSpec(bundleId: bundle.text, environment: environment))
        }
        return specs
    }
}
