import World

/// The steps that happen to a phone, its apps and its user: registering, calling, the app's life,
/// the network, Focus, blocked callers, a call in progress.
enum PhoneSteps {
    static let app = Option("app", .app, "which of the phone's apps (default its first)")

    static let kinds: [StepKind] =
        [
            StepKind(
                "register", "<phone>", "the phone's app hands its token to the provider",
                options: [
                    Option(
                        "token", .choice(TokenKind.allCases.map(\.rawValue)), "which token: voip (default) or alert"),
                    Option("as", .name, "the user the token is for (default the phone's name)"), app,
                ]
            ) { $0.lowerRegister($1.argument, $1.block, at: $1.range) },
            StepKind(
                "unregister", "<phone>",
                "the user who registered the phone logs out: the provider should forget the token",
                options: [Option("app", .app, "which app's registration ends")]
            ) { $0.lowerUnregister($1.argument, $1.block, at: $1.range) },
            StepKind(
                "call", "<user>", "the provider is asked to ring a user",
                options: [
                    Option("from", .name, "the caller's handle, put into the payload"),
                    Option("as", .name, "a name for the call, for expect phone … call:"),
                ]
            ) { $0.lowerCall($1.argument, $1.block, at: $1.range) },
        ] + appEvents + [
            StepKind("offline", "<phone>", "the phone loses its network") { $0.lowerConnectivity($1, online: false) },
            StepKind("online", "<phone>", "the phone is back: APNs delivers what it stored") {
                $0.lowerConnectivity($1, online: true)
            },
            StepKind(
                "do-not-disturb", "<phone>", "Focus: CallKit refuses calls but from allowed callers",
                options: [
                    Option("on", .boolean, "true (default) or false"),
                    Option("allow", .names, "callers Focus lets through"),
                ]
            ) { $0.lowerDoNotDisturb($1) },
            StepKind(
                "block", "<phone>", "the user blocks a caller: CallKit refuses their calls",
                options: [Option("caller", .names, "the handle (or handles) the user blocks")]
            ) { $0.lowerBlock($1) },
            StepKind(
                "on-call", "<phone>", "a call is in progress on the phone: a VoIP push need not be reported",
                options: [Option("on", .boolean, "true (default) or false: the call ends")]
            ) { $0.lowerOnCall($1) },
        ]

    /// What happens to an app, each a `World.AppEvent` of the same name.
    static let appEvents: [StepKind] = [
        (World.AppEvent.reinstall, "the app is deleted and installed again: new tokens, the old ones die"),
        (.uninstall, "the app is deleted: its tokens die (410) and it is gone from the phone"),
        (.rotateToken, "the system issues the app new tokens; the old ones die"),
        (.forceQuit, "the user swipes the app away (matters with folklore force-quit-blocks-voip)"),
        (.relaunch, "the user opens a force-quit app again"),
        (.foreground, "the user opens the app: it need not report a VoIP push"),
        (.background, "the user leaves the app"),
    ].map { event, meaning in
        StepKind(event.rawValue, "<phone>", meaning, options: [Option("app", .app, "which app")]) {
            $0.lowerAppEvent(event, $1)
        }
    }
}

extension Lowering {
    mutating func lowerRegister(_ argument: Scalar, _ block: Block, at range: SourceRange) -> Step.Action? {
        if case .http(let service) = provider { needsTemplate("register", service.register, at: range) }
        let kind = word(block, "token", TokenKind.self) ?? .voip
        var userName = argument.text
        if let scalar = scalar(block, "as") {
            guard isName(scalar, what: "a user's name") else { return nil }
            userName = scalar.text
        }
        guard let phone = phone(argument) else { return nil }
        let bundle = app(block, of: phone)
        // The user is known even when the registration is refused, so that later steps are not refused too.
        guard isInstalled(bundle, on: phone, at: block.node("app")?.range ?? argument.range) else {
            users[userName, default: []] = users[userName] ?? []
            return nil
        }
        users[userName, default: []].insert(phone.index)
        registrationCount += 1
        registrations[phone.index, default: [:]][bundle, default: []].append((userName, kind, registrationCount))
        return .register(phone: phone, user: userName, app: bundle, kind: kind)
    }

    mutating func lowerUnregister(_ argument: Scalar, _ block: Block, at range: SourceRange) -> Step.Action? {
        if case .http(let service) = provider { needsTemplate("unregister", service.unregister, at: range) }
        guard let phone = phone(argument) else { return nil }
        // The registration of that app (or the latest) ends: its user is the http templates' `{user}`.
        let named = block.has("app") ? app(block, of: phone) : nil
        guard let registration = latestRegistration(of: phone.index, app: named, remove: true) else {
            report(
                "Not registered", at: argument.range,
                "\(phone.name)\(named.map { "'s <\($0)>" } ?? "") was not registered before this step")
            return nil
        }
        guard isInstalled(registration.app, on: phone, at: block.node("app")?.range ?? argument.range) else {
            return nil
        }
        return .unregister(phone: phone, user: registration.user, app: registration.app, kind: registration.kind)
    }

    mutating func lowerCall(_ argument: Scalar, _ block: Block, at range: SourceRange) -> Step.Action? {
        if case .http(let service) = provider { needsTemplate("call", service.call, at: range) }
        // Without `from:` the payload's handle is empty: a call from no one.
        var caller = ""
        if let from = scalar(block, "from") {
            // Placeholders put it into shell commands and JSON as it is.
            if !from.text.isEmpty, from.text.count <= 64,
                from.text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+._@-".contains($0)) })
            {
                caller = from.text
            } else {
                report(
                    "Not a caller", at: from.range,
                    "<from> takes a handle of letters, digits and + . _ @ - (at most 64), got <\(clip(from.text))>")
            }
        }
        var name: String?
        if let scalar = scalar(block, "as"), isName(scalar, what: "a call's name") {
            if calls[scalar.text] != nil {
                report("Duplicate call name", at: scalar.range, "another call is already named <\(clip(scalar.text))>")
            }
            name = scalar.text
        }
        guard let user = user(argument) else { return nil }
        if let name { calls[name] = (user, users[user] ?? []) }
        return .call(user: user, caller: caller, name: name, phones: (users[user] ?? []).sorted())
    }

    mutating func lowerAppEvent(_ event: World.AppEvent, _ step: StepInput) -> Step.Action? {
        phone(step.argument).flatMap { phone in
            let bundle = app(step.block, of: phone)
            guard isInstalled(bundle, on: phone, at: step.block.node("app")?.range ?? step.argument.range) else {
                return nil
            }
            if event == .uninstall { uninstalled[phone.index, default: [:]][bundle] = step.range.start.line }
            return .app(event, phone: phone, app: bundle)
        }
    }

    mutating func lowerConnectivity(_ step: StepInput, online: Bool) -> Step.Action? {
        phone(step.argument).map { .connectivity(phone: $0, online: online) }
    }

    mutating func lowerDoNotDisturb(_ step: StepInput) -> Step.Action? {
        let on = boolean(step.block, "on") ?? true
        let allowed = names(step.block, "allow", what: "callers' handles")
        if step.block.has("allow"), !on {
            report(
                "Not for this step", at: step.block.entry("allow")!.keyRange,
                "<allow> lets callers through while Focus is on")
        }
        return phone(step.argument).map { .phoneState(phone: $0, [.doNotDisturb(on), .vipCallers(Set(allowed))]) }
    }

    mutating func lowerBlock(_ step: StepInput) -> Step.Action? {
        guard step.block.has("caller") else {
            report(
                "Missing key", at: step.range,
                "<block> needs <caller>: the handle the user blocks, e.g. <caller: bob>")
            return nil
        }
        let callers = names(step.block, "caller", what: "callers' handles")
        if callers.isEmpty, let entry = step.block.entry("caller"), case .sequence = entry.value {
            report("Empty value", at: entry.keyRange, "<caller> takes the handle (or handles) the user blocks")
        }
        return phone(step.argument).map { phone in
            blocked[phone.index, default: []].formUnion(callers)
            return .phoneState(phone: phone, [.blockedCallers(blocked[phone.index]!)])
        }
    }

    mutating func lowerOnCall(_ step: StepInput) -> Step.Action? {
        let on = boolean(step.block, "on") ?? true
        return phone(step.argument).map { .phoneState(phone: $0, [.activeCall(on ? "a call in progress" : nil)]) }
    }
}
