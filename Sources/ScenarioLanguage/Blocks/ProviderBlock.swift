import APNs
import World

/// `provider:` — the provider under test, in a scenario or a provider file: its keys, declared once
/// (`Schema`, `Keywords` and `explain` read them), and their lowering into a `ProviderSetup`.
enum ProviderBlock {
    static let context = "<provider>"
    static let keys: [Option] = [
        Option(
            "builtin", .choice(ProviderProfile.allCases.map(\.rawValue)),
            "the reference provider (reference) or a naive profile with a classic mistake"),
        Option("exec", .text, "one shell command per push, with {placeholders}"),
        Option("http", .text, "a long-running service, started, waited for, driven over HTTP and stopped"),
        Option("ready", .text, "the URL that answers 200 once the http service is ready"),
        Option("register", .text, "METHOD /path body: how the http service learns a token"),
        Option("unregister", .text, "METHOD /path body: how the http service forgets a token"),
        Option("call", .text, "METHOD /path body: how the http service is asked to ring a user"),
        Option(
            "auth", .choice(ProviderAuthentication.allCases.map(\.rawValue)),
            "in a provider file: token or certificate, how the provider authenticates to APNs"),
        Option(
            "settles-within", .duration(atMost: Lowering.longestSettling),
            "how late an exec or http provider may push after the step that asked (a job queue's delay; default 0 for exec, 2s for http, at most 5m)"
        ),
        Option(
            "call-id-at", .text,
            "where the app reads the call id in the payload, a path of keys like data.call.id (default: callUUID and its usual spellings at the top)"
        ),
        Option(
            "caller-at", .text,
            "where the app reads the caller in the payload, e.g. data.call.from (default: handle and its usual spellings at the top)"
        ),
        Option(
            "register-answers", .text,
            "the statuses the register template may answer, e.g. [2xx, 409] (default 2xx)"),
        Option(
            "unregister-answers", .text,
            "the statuses the unregister template may answer, e.g. [2xx, 404] (default 2xx)"),
        Option("call-answers", .text, "the statuses the call template may answer, e.g. [2xx, 404] (default 2xx)"),
    ]
}

extension Lowering {
    mutating func lowerProvider(_ node: Node, inProviderFile: Bool) -> ProviderSetup {
        guard let mapping = mapping(node, key: "provider") else { return .builtin(.reference) }
        let block = open(mapping, keys: Schema.provider, context: ProviderBlock.context)
        if let entry = block.entry("auth") {
            if inProviderFile {
                providerFileAuthentication = word(block, "auth", ProviderAuthentication.self)
            } else {
                report(
                    "Not in a scenario", at: entry.keyRange,
                    "<auth> under <provider> says how a provider file's provider authenticates; a scenario writes <apns: auth:>"
                )
            }
        }
        let adapters = ["builtin", "exec", "http"].filter { block.has($0) }
        guard adapters.count == 1 else {
            report(
                adapters.isEmpty ? "No provider" : "Two providers", at: mapping.range,
                "<provider> takes one of <builtin: PROFILE>, <exec: COMMAND> or <http: COMMAND>"
                    + (adapters.isEmpty ? "" : "; found \(adapters.joined(separator: " and "))"))
            return .builtin(.reference)
        }
        if let entry = block.entry("settles-within") {
            if adapters[0] == "builtin" {
                report(
                    "Not for this provider", at: entry.keyRange,
                    "the built-in provider has sent, and been answered, when its step returns: <settles-within> is for exec and http providers"
                )
            } else {
                providerSettlesWithin = duration(block, "settles-within", atMost: Self.longestSettling)
            }
        }
        let callId = path(block, "call-id-at", builtin: adapters[0] == "builtin")
        let caller = path(block, "caller-at", builtin: adapters[0] == "builtin")
        if callId != nil || caller != nil { providerCallPaths = CallPaths(callId: callId, caller: caller) }
        if adapters[0] != "http" {
            for key in [
                "ready", "register", "unregister", "call", "register-answers", "unregister-answers", "call-answers",
            ] {
                if let entry = block.entry(key) {
                    report("Not for this provider", at: entry.keyRange, "<\(key)> is a template of the http adapter")
                }
            }
        }
        switch adapters[0] {
        case "builtin":
            return .builtin(word(block, "builtin", ProviderProfile.self) ?? .reference)
        case "exec":
            guard let scalar = scalar(block, "exec") else { return .builtin(.reference) }
            return .exec(template(scalar, key: "exec", place: .execProvider))
        default:
            guard let command = scalar(block, "http") else { return .builtin(.reference) }
            var service = HTTPService(
                command: template(command, key: "http", place: .httpCommand),
                ready: Template(text: "http://127.0.0.1:{port}/health", range: command.range))
            if let ready = scalar(block, "ready") { service.ready = template(ready, key: "ready", place: .httpReady) }
            service.register = requestTemplate(block, "register", place: .httpRegister)
            service.unregister = requestTemplate(block, "unregister", place: .httpUnregister)
            service.call = requestTemplate(block, "call", place: .httpCall)
            answers(block, "register", &service.register)
            answers(block, "unregister", &service.unregister)
            answers(block, "call", &service.call)
            return .http(service)
        }
    }

    /// A path of object keys in the payload (`data.call.id`), for a provider whose app reads the
    /// call there; refused for the built-in provider, whose payload is its own.
    mutating func path(_ block: Block, _ key: String, builtin: Bool) -> [String]? {
        guard let scalar = scalar(block, key) else { return nil }
        if builtin {
            report(
                "Not for this provider", at: scalar.range,
                "the built-in provider's payload carries callUUID and handle at the top: <\(key)> is for exec and http providers"
            )
            return nil
        }
        let keys = scalar.text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let isKey = { (key: String) in
            !key.isEmpty && key.count <= 64
                && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-".contains($0)) }
        }
        guard (1...8).contains(keys.count), keys.allSatisfy(isKey) else {
            report(
                "Not a path", at: scalar.range,
                "<\(key)> takes object keys joined by dots, at most 8 (letters, digits, _ and -), like data.call.id; got <\(clip(scalar.text))>"
            )
            return nil
        }
        return keys
    }

    /// `<key>-answers: [2xx, 404]`: the statuses the template may answer, each `Nxx` or a status.
    mutating func answers(_ block: Block, _ key: String, _ template: inout RequestTemplate?) {
        let option = key + "-answers"
        guard let entry = block.entry(option) else { return }
        let items = listItems(block, option, what: "statuses")
        guard template != nil else {
            report(
                "No template", at: entry.keyRange,
                "<\(option)> says what the <\(key):> template may answer; there is none")
            return
        }
        var answers = Answers()
        answers.classes = []
        for item in items {
            let text = item.text.lowercased()
            if text.count == 3, text.hasSuffix("xx"), let hundreds = Int(text.prefix(1)), (1...5).contains(hundreds) {
                answers.classes.insert(hundreds)
            } else if text.count == 3, let status = Int(text), (100...599).contains(status) {
                answers.statuses.insert(status)
            } else {
                report(
                    "Not a status", at: item.range,
                    "<\(option)> takes HTTP statuses (100–599) and classes (2xx, 4xx); got <\(clip(item.text))>")
            }
        }
        if answers.classes.isEmpty, answers.statuses.isEmpty { answers = Answers() }
        template?.answers = answers
    }

    /// A template whose every `{word}` is a placeholder this place fills in.
    mutating func template(_ scalar: Scalar, key: String, place: Placeholder.Place) -> Template {
        var seen: [String: Int] = [:]
        for case .placeholder(let name, let offset) in Template.pieces(scalar.text) {
            seen[name, default: 0] += 1
            let range = locate("{\(name)}", occurrence: seen[name]!, in: scalar, fallbackOffset: offset)
            let filled = place.placeholders.map(\.token).joined(separator: " ")
            if let placeholder = Placeholder(rawValue: name) {
                if !place.placeholders.contains(placeholder) {
                    report(
                        "Not filled in here", at: range,
                        "the \(place.rawValue) fills in \(filled); not <\(placeholder.token)>")
                }
            } else {
                report(
                    "Unknown placeholder", at: range,
                    "<{\(clip(name))}> is not a placeholder; the \(place.rawValue) fills in \(filled) (write {{ and }} for braces)",
                    suggestion: didYouMean(name, among: place.placeholders.map(\.rawValue)).map { "{\($0)}" })
            }
        }
        let template = Template(text: scalar.text, range: scalar.range)
        if place.isShell {
            for (offset, why) in template.uncertainInShell {
                report(
                    "Cannot quote here", at: scalar.range,
                    "the placeholder at character \(offset + 1) stands \(why), where Ringside cannot make its value one shell word; pass it as an argument instead (`sh -c '…\"$1\"…' sh {dir}`)"
                )
            }
        }
        return template
    }

    /// Where the n-th `token` of a value stands in the file: searched in the source lines the value
    /// covers, so that escapes in quotes and `|` text blocks point at the right column.
    func locate(_ token: String, occurrence: Int, in scalar: Scalar, fallbackOffset: Int) -> SourceRange {
        let first = scalar.range.start.line
        let last = first + scalar.text.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) } + 1
        var count = 0
        for number in first...last where number - 1 < lines.count {
            var line = Substring(lines[number - 1])
            var column = 1
            if number == first {
                line = line.dropFirst(scalar.range.start.column - 1)
                column = scalar.range.start.column
            }
            while let found = line.firstRange(of: token) {
                count += 1
                let at = column + line.distance(from: line.startIndex, to: found.lowerBound)
                if count == occurrence {
                    return SourceRange(start: SourceLocation(line: number, column: at), length: token.count)
                }
                column = at + token.count
                line = line[found.upperBound...]
            }
        }
        return SourceRange(
            start: SourceLocation(line: first, column: scalar.range.start.column + fallbackOffset), length: token.count)
    }

    mutating func requestTemplate(_ block: Block, _ key: String, place: Placeholder.Place) -> RequestTemplate? {
        guard let scalar = scalar(block, key) else { return nil }
        let parts = scalar.text.split(separator: " ", maxSplits: 2).map(String.init)
        let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
        guard parts.count >= 2, methods.contains(parts[0]), parts[1].hasPrefix("/") else {
            report(
                "Not a request", at: scalar.range,
                "<\(key)> takes `METHOD /path [body]` with METHOD one of \(methods.joined(separator: ", ")); got <\(clip(scalar.text))>"
            )
            return nil
        }
        let checked = template(scalar, key: key, place: place)
        let pathStart = parts[0].count + 1
        func part(_ text: String, at offset: Int) -> Template {
            var range = checked.range
            range.start.column += offset
            range.length = text.count
            return Template(text: text, range: range)
        }
        return RequestTemplate(
            method: parts[0], path: part(parts[1], at: pathStart),
            body: parts.count > 2 ? part(parts[2], at: pathStart + parts[1].count + 1) : nil)
    }
}
