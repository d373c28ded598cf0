import APNs
import Foundation
import ScenarioLanguage
import World

/// `ringside explain`: a reason, a header, a curl command or a transcript line, in words.
enum ExplainCommand {
    static let spec = CommandSpec(
        "explain", abstract: "Explain a reason, a header, a curl command or a transcript line.",
        operands: """
            <reason | header | rule | fault action | scenario keyword | curl command … |
                                    transcript JSON line>
            """,
        about: """
            Explains what APNs means, with the words the fake APNs uses in its log:
              ringside explain Unregistered              a reason: status, meaning, what to do, source
              ringside explain apns-expiration           a header: meaning and what a VoIP push sends
              ringside explain curl -H 'apns-topic: …' … a request: each header judged, then the verdict
              ringside explain '{"event":"push",…}'      a transcript line: the request and its answer
              ringside explain rules                     every rule of APNs and the phone (expect phone … rules:)
              ringside explain stored-keeps-oldest       one rule
              ringside explain voip-lint                 every voip-lint rule; 'ringside explain
                                                         voip-lint/expiration-not-zero' one
              ringside explain faults                    every fault action; 'ringside explain goaway' one
              ringside explain keywords                  every scenario keyword; 'ringside explain throttle' one
              ringside explain concepts                  the ideas behind them: pushkit, priority, push-type,
                                                         expiration, topic, voip-lint, expect
            """,
        exitCodes: "Exit codes: 0 explained, 64 nothing to explain or a word it does not know.")

    static func run(_ arguments: [String]) -> Int32 {
        // Only the first word can ask for help: a curl command's own options follow `curl`.
        guard let given = arguments.first, given != "--help", given != "-h" else {
            Output.out(spec.help)
            return arguments.isEmpty ? ExitCode.usage : ExitCode.success
        }
        // A word copied from the output with its punctuation (`BadDeviceToken:`, `"rang"`) is the word.
        // A title (`… (folklore)`) is taken whole.
        let first = arguments.count == 1 && !given.hasPrefix("{") && !given.contains(" ") ? trimmed(given) : given
        if let reason = Reason(wire: first), arguments.count == 1 {
            Output.out(explain(reason))
            return ExitCode.success
        }
        if let entry = HeaderVocabulary.entry(first), arguments.count == 1 {
            Output.out("\(entry.name): \(entry.meaning)\nFor a VoIP push: \(entry.forVoIP)")
            return ExitCode.success
        }
        if arguments.count == 1, let text = explainWord(first) ?? explainWord(asWritten(first)) {
            Output.out(text)
            return ExitCode.success
        }
        if first == "curl" {
            Output.out(explainCurl(Array(arguments.dropFirst())))
            return ExitCode.success
        }
        if first.hasPrefix("{"), let text = explainTranscriptLine(arguments.joined(separator: " ")) {
            Output.out(text)
            return ExitCode.success
        }
        let words =
            Reason.allCases.map(\.wire) + HeaderVocabulary.entries.map(\.name) + PhoneRule.allCases.map(\.rawValue)
            + LintRule.allCases.map(\.name)
            + FaultSpec.Action.allCases.map(\.rawValue) + Array(Keywords.steps.keys)
            + Keywords.keys.keys.map { String($0.split(separator: ".").last!) }
        let hint = didYouMean(first, among: words).map { "; did you mean <\($0)>?" } ?? ""
        Output.error(
            "error: <\(first)> is not a reason, a header, a rule, a fault action, a scenario keyword, a curl command or a transcript line\(hint)"
        )
        return ExitCode.usage
    }

    /// A word as Ringside's output may write it, as the vocabulary spells it: `GOAWAY` is `goaway`,
    /// `shed.` is `shed` (the adversary's, session 17).
    static func asWritten(_ word: String) -> String { trimmed(word).lowercased() }

    /// The word without the punctuation and quotes around it in a sentence.
    static func trimmed(_ word: String) -> String {
        var word = Substring(word)
        while let last = word.last, ".,:;!?)]\"'`…".contains(last), word.count > 1 { word = word.dropLast() }
        while let first = word.first, "([\"'`".contains(first), word.count > 1 { word = word.dropFirst() }
        return String(word)
    }

    /// The rules, the fault actions and the scenario keywords, one by one or all at once.
    static func explainWord(_ word: String) -> String? {
        if let concept = Concept.named(word) { return concept.page }
        switch word {
        case "concepts":
            return "Concepts ('ringside explain CONCEPT'):\n"
                + Concept.all.map { "  \($0.name): \($0.summary)" }
                .joined(separator: "\n")
        case "rules":
            return "Rules of APNs and the phone (`expect phone … rules:`):\n"
                + PhoneRule.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n")
        case "faults":
            return
                "Fault actions (`fault:` in a scenario, `\"action\"` in POST /faults; an APNs reason means answer):\n"
                + FaultSpec.Action.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n")
        case "keywords":
            return "Steps (their options: 'ringside explain STEP'):\n"
                + Keywords.steps.keys.sorted().map { "  \($0): \(Keywords.steps[$0]!)" }.joined(separator: "\n")
                + "\nKeys:\n"
                + Keywords.keys.keys.sorted().map {
                    "  \($0.replacingOccurrences(of: "top.", with: "")): \(Keywords.keys[$0]!)"
                }
                .joined(separator: "\n")
        case "outcomes":
            return "Outcomes of a push (`expect phone … outcome:`), with their reasons (`reason:`):\n"
                + RingOutcome.Kind.allCases.map { kind in
                    "  \(kind.rawValue)" + (kind.reasons.isEmpty ? "" : ": " + kind.reasons.joined(separator: ", "))
                }.joined(separator: "\n")
        default: break
        }
        return explainOther(word)
    }

    /// The rules, fault actions, outcomes and keywords a word names.
    static func explainOther(_ word: String) -> String? {
        // A word may be several things (do-not-disturb is a step and a rule): each is said.
        var found: [String] = []
        if let rule = LintRule(name: word) { found.append(explain(rule)) }
        if let rule = PhoneRule(rawValue: word) { found.append("rule \(rule.rawValue): \(rule.summary)") }
        if let action = FaultSpec.Action(rawValue: word) {
            let options = FaultStep.options(action).map { "\($0) (\(Keywords.options["fault.\($0)"] ?? ""))" }
            found.append(
                "fault \(action.rawValue): \(action.summary)"
                    + (options.isEmpty ? "" : "\noptions: " + options.joined(separator: ", ")))
        }
        if let kind = RingOutcome.Kind(rawValue: word) {
            found.append(
                "outcome \(kind.rawValue)"
                    + (kind.reasons.isEmpty ? "" : ", for: " + kind.reasons.joined(separator: ", ")))
        }
        if let kind = RingOutcome.Kind.allCases.first(where: { $0.reasons.contains(word) }) {
            found.append(
                "outcome reason \(word) (a push that ended \(kind.rawValue)): "
                    + (RingOutcome.Kind.advice(forReason: word) ?? "`ringside explain outcomes` lists them"))
        }
        if let keyword = Keywords.explain(word) { found.append(keyword) }
        if found.isEmpty, let scenario = explainScenario(word) { found.append(scenario) }
        return found.isEmpty ? nil : found.joined(separator: "\n")
    }

    /// A scenario of the library named by its file (`01-a-call-rings.ring`, `phone/01-a-call-rings`)
    /// or its title, as run's output names it, or a `.ring` file given by its path: what it checks,
    /// what it teaches, and how to run it.
    static func explainScenario(_ word: String) -> String? {
        var candidates: [String] = []
        if word.hasSuffix(".ring"), FileManager.default.fileExists(atPath: word) { candidates.append(word) }
        if let library = ScenarioLibrary.directory {
            let files = (FileManager.default.enumerator(atPath: library)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".ring") }.sorted()
            let wanted = word.hasSuffix(".ring") ? word : word + ".ring"
            candidates += files.filter { $0 == wanted || ($0 as NSString).lastPathComponent == wanted }
                .map { library + "/" + $0 }
            if candidates.isEmpty {
                candidates += files.map { library + "/" + $0 }.filter { path in
                    guard let text = try? SourceFile.read(path).text else { return false }
                    return field("scenario", in: text)?.lowercased() == word.lowercased()
                        || field("obligation", in: text)?.lowercased() == word.lowercased()
                }
            }
        }
        guard let path = candidates.first, let text = try? SourceFile.read(path).text else { return nil }
        var lines = ["scenario \(field("scenario", in: text) ?? "(untitled)")", "file: \(path)"]
        if let obligation = field("obligation", in: text) {
            lines.append("requirement: your provider \(obligation) [\(field("basis", in: text) ?? "?")]")
        } else if text.contains("\nprovider:") {
            lines.append("demonstration: it pins its own provider (skipped with --provider-file)")
        }
        let teaches = text.components(separatedBy: "\n").drop { !$0.hasPrefix("teaches:") }.dropFirst()
            .prefix { $0.hasPrefix("  ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        if !teaches.isEmpty { lines.append("teaches: " + teaches.joined(separator: " ")) }
        lines.append("run it: ringside run \(path)")
        return lines.map(OutsideText.visible).joined(separator: "\n")
    }

    /// A top-level `key: value` line's value.
    private static func field(_ key: String, in text: String) -> String? {
        text.components(separatedBy: "\n").first { $0.hasPrefix(key + ": ") }
            .map { String($0.dropFirst(key.count + 2)).trimmingCharacters(in: .whitespaces) }
    }

    static func retry(_ reason: Reason) -> String {
        if reason.isPermanentForToken { return "never (Apple's list)" }
        if reason == .shutdown || reason == .idleTimeout {
            return "at once, on a new connection (it comes as a GOAWAY)"
        }
        return reason.status >= 500 || reason.status == 429 ? "later, with back-off" : "not unchanged"
    }

    static func explain(_ reason: Reason) -> String {
        """
        \(reason.status) \(reason.wire)
        What it means: \(reason.explanation)
        What to do:    \(reason.whatToDo)
        Retry?         \(retry(reason))
        Source:        \(reason.source)
        """
    }

    /// A `voip-lint` rule: what it refuses, why, what to send, and the Apple reason it answers with.
    static func explain(_ rule: LintRule) -> String {
        """
        \(rule.name): answers \(rule.reason.status) \(rule.reason.wire) under the voip-lint profile (an Apple reason, so that any client understands; the reason's own meaning does not apply)
        What it refuses: \(rule.explanation)
        Why:             \(rule.why)
        What to do:      \(rule.whatToDo)
        """
    }

    /// Parses the curl options that shape an APNs request and judges it as the mock would.
    static func explainCurl(_ arguments: [String]) -> String {
        var request = PushRequest()
        var method: String?
        var url: String?
        var body = ""
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let next = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch argument {
            case "-H", "--header":
                if let colon = next.firstIndex(of: ":") {
                    request.add(
                        name: next[..<colon].lowercased(),
                        value: next[next.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                index += 1
            case "-X", "--request":
                method = next
                index += 1
            case "-d", "--data", "--data-binary", "--data-raw":
                body = next
                index += 1
            default:
                if argument.hasPrefix("http") { url = argument }
            }
            index += 1
        }
        let path = url.flatMap { URL(string: $0)?.path } ?? "/"
        request.add(name: ":method", value: method ?? (body.isEmpty ? "GET" : "POST"))
        request.add(name: ":path", value: path)
        request.body = Array(body.utf8)
        request.bodyLength = request.body.count
        var lines = ["The request, header by header (✓ right for a VoIP push, ✗ not):"]
        let values: [(String, String?)] = [
            (":method", request.method), (":path", request.path), ("authorization", request.authorization),
            ("apns-topic", request.topic), ("apns-push-type", request.pushType), ("apns-priority", request.priority),
            ("apns-expiration", request.expiration), ("apns-id", request.apnsId),
            ("apns-collapse-id", request.collapseId),
        ]
        for (name, value) in values {
            guard let entry = HeaderVocabulary.entry(name) else { continue }
            guard let value else {
                lines.append("  · \(name) absent — \(entry.meaning); for a VoIP push: \(entry.forVoIP)")
                continue
            }
            let shown = name == "authorization" ? ProviderToken.redacted(value) : value
            if let problem = entry.judge(value) {
                lines.append("  ✗ \(name): \(shown) — \(problem)")
            } else {
                lines.append("  ✓ \(name): \(shown)")
            }
        }
        lines.append("  · body: \(request.bodyLength) bytes (VoIP limit 5120, others 4096)")
        lines.append("")
        lines.append("What APNs answers (signature and device not checked here):")
        for profile in ValidationSettings.Profile.allCases {
            let validator = Validator(settings: ValidationSettings(profile: profile), keys: KeyStore())
            // Judge the headers as if the credentials were good (explain has no keys): a certificate
            // that allows exactly the request's topic.
            var credentials = ConnectionCredentials.certificate(
                ClientCertificate(uid: nil, topics: [request.topic ?? ""], environments: [.sandbox, .production]))
            switch validator.validate(request, credentials: &credentials, at: Moment(0)) {
            case .success: lines.append("  \(profile.rawValue): 200 — accepted")
            case .failure(let rejection):
                lines.append(
                    "  \(profile.rawValue): \(rejection.reason.status) \(rejection.reason.wire) — \(rejection.detail). \(rejection.explanation)"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    static func explainTranscriptLine(_ line: String) -> String? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            return nil
        }
        var out: [String] = []
        if let request = object["request"] as? [String: Any] {
            let path = request[":path"] as? String ?? "?"
            out.append("\(request[":method"] as? String ?? "?") \(path)")
            for key in request.keys.sorted() where key != ":method" && key != ":path" {
                out.append("  \(key): \(request[key].map { "\($0)" } ?? "")")
            }
        }
        if let status = object["status"] as? Int {
            if let wire = object["reason"] as? String, let reason = Reason(wire: wire) {
                out.append("→ \(status) \(wire): \(object["detail"] as? String ?? "")")
                // A voip-lint refusal is explained by its rule, not by the reason it answers with.
                out.append((object["lint"] as? String).flatMap(LintRule.init(name:)).map(explain) ?? explain(reason))
            } else {
                out.append("→ \(status) accepted")
            }
        }
        if let outcome = object["outcome"] as? String {
            out.append("Outcome: \(outcome)\(object["reason"].map { " (\($0))" } ?? "")")
            for step in object["chain"] as? [[String: Any]] ?? [] { out.append("  - \(step["text"] as? String ?? "")") }
        }
        return out.isEmpty ? nil : out.joined(separator: "\n")
    }
}
