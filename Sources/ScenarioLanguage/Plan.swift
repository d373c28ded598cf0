import APNs
import World

/// A checked scenario, ready to run: every word read, every reference resolved, every number a
/// number in its range. The checker is the only code that reads a scenario's keys; the runner
/// switches over this plan (hurl's typed AST, a source range on every step, is the model).
public struct ScenarioPlan: Sendable {
    public var name: String
    public var teaches: String?
    /// What a requirement asks of the provider under test, as an obligation of *its* (`obligation:`
    /// "retries a 503 with back-off"): the conformance summary's line.
    public var obligation: String?
    /// What the obligation rests on (`basis:`).
    public var basis: Basis?
    public var seed: UInt64 = 1
    public var apns = APNsSetup()
    public var world = WorldSetup()
    public var phones: [PhonePlan] = []
    public var provider: ProviderSetup = .builtin(.reference)
    /// The file names its own provider: a *demonstration* (often of a broken provider), not run
    /// against the provider under test; without one it is a *requirement*.
    public var pinsProvider = false
    /// Why this requirement cannot be judged against the provider under test (written for the
    /// other authentication, a template the provider file lacks); empty when it can.
    public var notApplicable: [String] = []
    public var steps: [Step] = []
    /// How late the provider may push after a step that drives it (`settles-within:`, or its
    /// adapter's default): positive checks wait up to it, counts and absence are judged after it,
    /// and the scenario's end waits it out before every verdict is judged again.
    public var settlesWithin: Double = 0

    /// The test app's bundle ID: the topic certs-test's client certificates carry.
    public static let testBundleId = "com.ringside.testapp"
}

/// What an obligation rests on: Apple's documentation, the practice of providers that work, or
/// what practitioners report and Apple does not document (opt-in, `apns: folklore:`).
public enum Basis: String, Sendable, CaseIterable {
    case apple, practice, folklore

    public var label: String {
        switch self {
        case .apple: return "Apple rule"
        case .practice: return "practice"
        case .folklore: return "folklore"
        }
    }
}

/// The fake APNs's side of a scenario (`apns:`).
public struct APNsSetup: Sendable {
    public var environment: APNsEnvironment = .sandbox
    public var profile: ValidationSettings.Profile = .apple
    /// How the built-in provider authenticates; `exec` and `http` providers choose for themselves.
    public var authentication: ProviderAuthentication = .token
    /// `auth:` as written: a requirement written for one kind is not applicable to a provider of
    /// the other.
    public var declaredAuthentication: ProviderAuthentication?
    /// The provider's client certificate: the built-in one's with certificate authentication, and
    /// `APNS_CERT_FILE` in the contract of the others.
    public var certificate: TestCertificate = .voip
    /// Opt-in rules that practitioners report and Apple does not document (`folklore:`).
    public var folklore: Set<WorldSettings.Folklore.Rule> = []
    /// How the mock speaks: APNs is TLS only, and a provider that sends its JWT and payloads in
    /// cleartext fails unless a scenario opts in.
    public var transport: APNsTransport = .tls
}

public enum APNsTransport: String, Sendable, CaseIterable {
    case tls
    /// HTTP/2 with prior knowledge, no TLS (h2c): `{url}` and `APNS_URL` say `http://`.
    case cleartext
}

public enum ProviderAuthentication: String, Sendable, CaseIterable {
    case token, certificate
}

/// The provider's client certificates in certs-test (`client-<name>.pem`, certs-test/README.md).
public enum TestCertificate: String, Sendable, CaseIterable {
    case voip, novoip
    case sandboxOnly = "sandbox-only"
    case productionOnly = "production-only"
    case expired, untrusted, plain
}

/// The world's numbers (`world:`).
public struct WorldSetup: Sendable {
    public var settings = WorldSettings()
    /// Any well-formed token is accepted and reaches no phone, as in a recorded run.
    public var acceptsUnknownTokens = false
}

/// A virtual phone (`phones:`); steps refer to it by its index.
public struct PhonePlan: Sendable {
    public var name: String
    public var online: Bool
    public var apps: [AppSpec]
    public var range: SourceRange
}

/// A phone named in a step, resolved at check time.
public struct PhoneRef: Sendable, Equatable {
    /// Its index in `ScenarioPlan.phones`, which is also its id in the world.
    public var index: Int
    public var name: String

    public init(index: Int, name: String) {
        self.index = index
        self.name = name
    }
}

/// The provider under test and its adapter (`provider:`).
public enum ProviderSetup: Sendable {
    case builtin(ProviderProfile)
    /// One shell command per push.
    case exec(Template)
    /// A long-running service driven over its own HTTP API.
    case http(HTTPService)

    public var isBuiltin: Bool {
        if case .builtin = self { return true }
        return false
    }

    /// How late a provider may push when its block does not say (`settles-within:`). The built-in
    /// provider has sent and been answered when its step returns; an `exec` command's pushes are
    /// over when no process it started still runs; a service may push from a job queue on its own
    /// clock, and 2 s covers a queue polled every second (delayed_job's 5 s must be declared).
    public var defaultSettlesWithin: Double {
        switch self {
        case .builtin, .exec: return 0
        case .http: return 2
        }
    }
}

/// The provider a team points the library at (`run --provider-file FILE`, `--provider exec: …`):
/// every requirement runs against it.
public struct ProviderUnderTest: Sendable {
    public var setup: ProviderSetup
    /// How it authenticates to APNs (`auth:` in the provider file; token when unsaid).
    public var authentication: ProviderAuthentication = .token
    /// What `{dir}` stands for in its commands: the provider file's folder.
    public var directory: String?
    /// Runs the demonstrations against it too, replacing the provider they pin: for Ringside's own
    /// tests (a provider that sends nothing must fail every scenario), never from the command line.
    public var alsoDemonstrations = false
    /// `settles-within:` in the provider file; its adapter's default when unsaid.
    public var settlesWithin: Double?
    /// `call-id-at:`, `caller-at:`: where the team's app reads the call in its payload.
    public var callPaths: CallPaths?

    public init(setup: ProviderSetup, authentication: ProviderAuthentication = .token, directory: String? = nil) {
        self.setup = setup
        self.authentication = authentication
        self.directory = directory
    }
}

/// Text with `{placeholder}`s, each checked against what its adapter fills in.
public struct Template: Sendable, Equatable {
    public var text: String
    public var range: SourceRange

    public init(text: String, range: SourceRange) {
        self.text = text
        self.range = range
    }

    /// The text with each placeholder replaced, in one pass (a value that looks like a placeholder is
    /// not replaced again), `{{` and `}}` written as `{` and `}`. The checker made sure only
    /// placeholders its place fills in occur.
    public func filled(_ values: [Placeholder: String]) -> String {
        var result = ""
        for piece in Self.pieces(text) {
            switch piece {
            case .literal(let text): result += text
            case .placeholder(let name, _): result += Placeholder(rawValue: name).flatMap { values[$0] } ?? "{\(name)}"
            }
        }
        return result
    }

    /// The text of a shell command with each placeholder's value as part of one word, whatever it
    /// holds (`$()`, backticks, quotes, spaces, newlines): quoted for where it stands — bare, inside
    /// `'…'` or inside `"…"` — so that a folder named `repo $(touch M)` is a folder, not a command
    /// (issue 46). `'{payload}'`, `"{dir}/service.py"` and a bare `{dir}` all mean the value.
    public func filledForShell(_ values: [Placeholder: String]) -> String {
        var result = ""
        var quoting = ShellQuoting.none
        for piece in Self.pieces(text) {
            switch piece {
            case .literal(let text):
                result += text
                quoting.read(text)
            case .placeholder(let name, _):
                let value = Placeholder(rawValue: name).flatMap { values[$0] } ?? "{\(name)}"
                result += quoting.quote(value)
                quoting.readValue()
            }
        }
        return result
    }

    /// The placeholders of a shell command that stand where Ringside cannot quote a value with
    /// certainty (`ShellQuoting.uncertain`), with why: the checker refuses them.
    public var uncertainInShell: [(offset: Int, why: String)] {
        var quoting = ShellQuoting.none
        var found: [(Int, String)] = []
        for piece in Self.pieces(text) {
            switch piece {
            case .literal(let text): quoting.read(text)
            case .placeholder(_, let offset):
                if let why = quoting.uncertain { found.append((offset, why)) }
                quoting.readValue()
            }
        }
        return found
    }

    /// Where a POSIX shell reading a command is, as far as quoting goes: a stack, because a command
    /// substitution (`$(…)`, backticks) starts a new command, bare, even inside `"…"` — a value
    /// quoted for the double quotes around it ran there (the adversary's `"$(echo {dir})"`,
    /// session 16).
    struct ShellQuoting {
        enum Context { case none, single, double, backtick }
        /// Each context entered and not left, the innermost last, with the plain parentheses open
        /// in it (a `)` closes those before it closes a `$(`).
        private var stack: [(context: Context, parentheses: Int)] = [(.none, 0)]
        /// After a backslash outside single quotes: the next character is taken as it is.
        private var escaped = false
        /// The last character read was a `$` outside single quotes.
        private var dollar = false
        /// Constructs this reading does not follow, where a value cannot be quoted with certainty
        /// (the adversary's, session 17): a comment (its `'` opens nothing), after a here-document's
        /// `<<`, inside `${…}` (its own quotes nest). The checker refuses a placeholder there.
        private var inComment = false
        private var afterHereDocument = false
        /// After the word `case`: its patterns end in a `)` no `(` opened, which this reading would
        /// take for the end of a `$(…)` (helper-7's, session 17).
        private var afterCase = false
        private var word = ""
        private var openBraces = 0
        /// The last character read (a space before any): after a space or an operator, `#` starts
        /// a comment; after a placeholder's value (`x`), it is a word's.
        private var lastCharacter: Character = " "

        static let none = ShellQuoting()

        /// Why a value cannot be quoted with certainty here, if it cannot.
        var uncertain: String? {
            if inComment { return "in a shell comment" }
            if afterHereDocument { return "after a here-document (<<)" }
            if afterCase { return "after a case statement" }
            if openBraces > 0 { return "inside ${…}" }
            let contexts = stack.map(\.context)
            if contexts.dropLast().contains(.backtick), contexts.last != .backtick {
                return "in quotes inside backticks (write $(…) instead)"
            }
            if escaped, contexts.contains(.backtick) { return "right after a backslash inside backticks" }
            return nil
        }

        mutating func read(_ text: String) {
            for character in text {
                defer { lastCharacter = character }
                let context = stack[stack.count - 1].context
                if inComment {
                    if character == "\n" { inComment = false }
                    continue
                }
                if escaped {
                    escaped = false
                    dollar = false
                    continue
                }
                if context == .none || context == .backtick {
                    // A `#` starts a comment where it would start a word (POSIX 2.3, rules 8 and 9):
                    // after a blank, a newline or an operator character — `)` too (helper-7's
                    // `(true)#'`) — and nowhere else: `'a'#'` and `}#'` continue their word
                    // (helper-8's), `$#` is a parameter.
                    if character == "#", " \t\n;&|()<>".contains(lastCharacter) {
                        inComment = true
                        continue
                    }
                    if character == "<", lastCharacter == "<" { afterHereDocument = true }
                    if character.isLetter {
                        word.append(character)
                    } else {
                        if word == "case" { afterCase = true }
                        word = ""
                    }
                } else {
                    word = ""
                }
                if context != .single {
                    if character == "{", dollar { openBraces += 1 }
                    if character == "}", openBraces > 0 { openBraces -= 1 }
                }
                let wasDollar = dollar
                dollar = character == "$" && context != .single
                switch context {
                case .single:
                    if character == "'" { stack.removeLast() }
                case .double:
                    switch character {
                    case "\\": escaped = true
                    case "\"": stack.removeLast()
                    case "(" where wasDollar: stack.append((.none, 0))
                    case "`": stack.append((.backtick, 0))
                    default: break
                    }
                case .none, .backtick:
                    switch character {
                    case "\\": escaped = true
                    case "'": stack.append((.single, 0))
                    case "\"": stack.append((.double, 0))
                    case "`" where context == .backtick: stack.removeLast()
                    case "`": stack.append((.backtick, 0))
                    case "(" where wasDollar: stack.append((.none, 0))
                    case "(": stack[stack.count - 1].parentheses += 1
                    case ")" where stack[stack.count - 1].parentheses > 0: stack[stack.count - 1].parentheses -= 1
                    case ")" where stack.count > 1: stack.removeLast()
                    default: break
                    }
                }
                if stack.isEmpty { stack = [(.none, 0)] }
            }
        }

        /// A placeholder's value was written: what follows is part of its word.
        mutating func readValue() {
            lastCharacter = "x"
            dollar = false
            word = "x"
        }

        /// `value` as it must be written here to stand for itself.
        func quote(_ value: String) -> String {
            let context = stack[stack.count - 1].context
            // After the template's own backslash, the value's first character would be taken as
            // it is and the rest read bare (`\{dir}`, `"\{dir}"` ran a folder named `$(touch M)`:
            // the adversary's, session 16): a second backslash makes the pair a backslash, kept as
            // text, and the value is quoted whole after it. In backticks the pair is written twice.
            if escaped {
                var plain = self
                plain.escaped = false
                return (context == .backtick ? "\\\\\\" : "\\") + plain.quote(value)
            }
            switch context {
            case .single: return Self.inSingle(value)
            case .double: return Self.inDouble(value)
            case .none: return "'" + Self.inSingle(value) + "'"
            case .backtick:
                // The shell finds a backtick's end before it reads quotes, and takes `\\` and "\\`"
                // inside as `\` and "`": both escaped, the rest single-quoted for the inner command.
                return ("'" + Self.inSingle(value) + "'").replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "`", with: "\\`")
            }
        }

        static func inSingle(_ value: String) -> String { value.replacingOccurrences(of: "'", with: "'\\''") }

        static func inDouble(_ value: String) -> String {
            var quoted = ""
            for character in value {
                if "\\\"$`".contains(character) { quoted.append("\\") }
                quoted.append(character)
            }
            return quoted
        }
    }

    /// A template's text, read once: literal text, and `{name}`s with their offset in characters.
    public enum Piece: Equatable {
        case literal(String)
        case placeholder(String, offset: Int)
    }

    public static func pieces(_ text: String) -> [Piece] {
        var pieces: [Piece] = []
        var literal = ""
        var index = text.startIndex
        var offset = 0
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "{" || character == "}", next < text.endIndex, text[next] == character {
                literal.append(character)
                index = text.index(after: next)
                offset += 2
                continue
            }
            if character == "{" {
                // What looks meant as a placeholder — `{callId}`, but also `{call_id}`, `{user2}`,
                // `{ user }` — is one, so that the checker refuses the misspelt ones instead of
                // sending them on as text; JSON (`{"a":1}`) and `{}` are text.
                let name = text[next...].prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == " " }
                let close = text.index(next, offsetBy: name.count)
                if name.contains(where: { $0.isLetter || $0.isNumber }), close < text.endIndex, text[close] == "}" {
                    if !literal.isEmpty { pieces.append(.literal(literal)) }
                    literal = ""
                    pieces.append(.placeholder(String(name), offset: offset))
                    index = text.index(after: close)
                    offset += name.count + 2
                    continue
                }
            }
            literal.append(character)
            index = next
            offset += 1
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }
}

/// The `http` adapter's service: how to start it, when it is ready, and its request templates.
public struct HTTPService: Sendable {
    public var command: Template
    /// The URL that answers 200 once the service is ready.
    public var ready: Template
    public var register: RequestTemplate?
    public var unregister: RequestTemplate?
    public var call: RequestTemplate?
}

/// `METHOD /path [body]`, sent to the service on its port, with the statuses it may answer.
public struct RequestTemplate: Sendable {
    public var method: String
    public var path: Template
    public var body: Template?
    /// What the service may answer (`call-answers: [2xx, 404]`); any other status fails the step.
    public var answers = Answers()
}

/// Statuses a service may answer a request template with: whole classes (`2xx`) and single
/// statuses (`404`: "callee has no devices" is a correct answer to a call).
public struct Answers: Sendable, Equatable, CustomStringConvertible {
    /// Hundreds: 2 stands for 2xx.
    public var classes: Set<Int> = [2]
    public var statuses: Set<Int> = []

    public init() {}

    public func allows(_ status: Int) -> Bool { classes.contains(status / 100) || statuses.contains(status) }

    public var description: String {
        (classes.sorted().map { "\($0)xx" } + statuses.sorted().map(String.init)).joined(separator: " or ")
    }
}

/// What adapters fill into templates. docs/scenario-language.md lists them; the checker refuses
/// any other and any that the template's place does not fill.
public enum Placeholder: String, Sendable, CaseIterable {
    case token, payload, callId, caller, user, kind, topic, url, ca, jwt, cert, certKey, dir, port

    public var token: String { "{\(rawValue)}" }

    /// What it stands for, for the documentation and `explain`.
    public var meaning: String {
        switch self {
        case .token: return "the device token (hex)"
        case .payload: return "the VoIP payload, JSON: {\"aps\":{},\"callUUID\":…,\"handle\":…}"
        case .callId: return "the call's UUID"
        case .caller: return "the caller's handle (`from:`)"
        case .user: return "the user the call or registration is for (`as:`, or the phone's name)"
        case .kind: return "the token's kind: voip or alert"
        case .topic: return "the VoIP topic: the bundle ID with .voip"
        case .url: return "the fake APNs's URL, https://127.0.0.1:PORT"
        case .ca: return "the CA file that signs the fake APNs's certificate"
        case .jwt: return "a provider token (JWT) signed with the contract's key, issued when the provider starts"
        case .cert: return "the provider's client certificate file (PEM)"
        case .certKey: return "the client certificate's private key file (PEM)"
        case .dir: return "the scenario file's directory"
        case .port: return "the http provider service's own port (also PORT in its environment)"
        }
    }

    /// Where a template stands, which decides what is filled in.
    public enum Place: String, Sendable, CaseIterable {
        case execProvider = "exec provider"
        case execStep = "exec step"
        case httpCommand = "http command"
        case httpReady = "ready URL"
        case httpRegister = "register template"
        case httpUnregister = "unregister template"
        case httpCall = "call template"

        /// Whether the template is a shell command (`filledForShell`).
        public var isShell: Bool { self == .execProvider || self == .execStep || self == .httpCommand }

        public var placeholders: [Placeholder] {
            let contract: [Placeholder] = [.topic, .url, .ca, .jwt, .cert, .certKey, .dir]
            switch self {
            case .execProvider: return [.token, .payload, .callId, .caller, .user] + contract
            case .execStep: return contract
            case .httpCommand: return contract + [.port]
            case .httpReady: return [.port]
            case .httpRegister: return [.user, .token, .kind, .port]
            case .httpUnregister: return [.user, .token, .port]
            case .httpCall: return [.user, .callId, .caller, .port]
            }
        }
    }
}

/// One step, with where it was written.
public struct Step: Sendable {
    public var action: Action
    /// The step's kind (`call`, `expect phone` …) in the file: failures point here.
    public var range: SourceRange

    public enum Action: Sendable {
        /// The phone's app hands its token to the provider for `user`.
        case register(phone: PhoneRef, user: String, app: String, kind: TokenKind)
        /// The user who registered the phone (its app's token of `kind`) logs out.
        case unregister(phone: PhoneRef, user: String, app: String, kind: TokenKind)
        /// The provider is asked to ring `user`; `name` binds the call for `expect phone … call:`.
        /// `phones`: the phones registered for `user` at this step (an `expect phone` without
        /// `call:` judges the pushes since the phone's latest call).
        case call(user: String, caller: String, name: String?, phones: [Int])
        /// Something that happens to an app (reinstall, uninstall).
        case app(World.AppEvent, phone: PhoneRef, app: String)
        case connectivity(phone: PhoneRef, online: Bool)
        /// Focus, blocked callers, a call in progress: what CallKit and PushKit consult.
        case phoneState(phone: PhoneRef, [World.PhoneChange])
        /// Moves the world clock.
        case advance(seconds: Double)
        /// Real time passes.
        case wait(seconds: Double)
        /// A command run once to its end with the provider contract in its environment.
        case exec(Template)
        case fault(FaultStep)
        case expectAPNs(APNsExpectation)
        case expectPhone(PhoneExpectation)
        case expectProvider(ProviderExpectation)
        /// A population and calls at a rate, in real time (`load:`).
        case load(LoadPlan)
        case expectLoad(LoadExpectation)
    }
}

/// When an expectation is judged. Each check declares it once, here (`APNsExpectation.judging`,
/// `ProviderExpectation.judging`, `PhoneExpectation.judging`); the runner only reads it, and the
/// language reference's words are compared with it by a test (ExpectationTimingTests).
public enum Judging: String, Sendable, CaseIterable {
    /// As soon as it holds, or when `within` runs out or the provider has settled (`settles-within`),
    /// whichever is later: nothing that comes later can undo it (a request was seen, a connection
    /// was refused).
    case whenItHolds = "as soon as it holds"
    /// As above, then again once an `exec` or `http` provider is quiet: what comes later can undo
    /// it (a second push for the same call 40 ms later, a retry without back-off).
    case whenSettled = "when it holds, and again once the provider has settled"
    /// Once the provider has settled (quiet, and `settles-within` after the last step that drove
    /// it) and not before `within` has passed: what must not happen, or happen exactly so often,
    /// may come late. A `within` lengthens the wait, never shortens it.
    case afterQuiet = "once the provider has settled, and not before `within`"
    /// After the last step, once the provider has settled: it counts over the whole scenario, so
    /// where it is written does not matter.
    case atEnd = "at the scenario's end"
}

/// An expectation made of checks, each declared with when it is judged and whether it expects
/// absence (`APNsExpectation`, `ProviderExpectation`): the runner judges them all the same way.
public protocol ExpectationWithChecks: Sendable {
    associatedtype Check: Sendable
    /// The checks it asks for, in the order they are judged.
    var checks: [Check] { get }
    func judging(_ check: Check) -> Judging
    func expectsAbsence(_ check: Check) -> Bool
    /// Real time to wait (none: judged at once, or when its `Judging` says).
    var within: Double? { get }
    /// How long a check may take to hold: `within`, unless the check declares more.
    func window(_ check: Check) -> Double?
    /// Whether what the check reads is settled once the built-in provider's step has returned (its
    /// requests were answered, the world holds their pushes), so that with nothing left on the
    /// world's schedule it cannot change; false for what the server's own threads report later.
    func settlesWithTheProvider(_ check: Check) -> Bool
    /// The phone whose tokens its checks read, if any.
    var phone: PhoneRef? { get }
}

extension ExpectationWithChecks {
    public func window(_ check: Check) -> Double? { within }
    public func settlesWithTheProvider(_ check: Check) -> Bool { true }
}

extension Judging {
    /// Every check with when it is judged, read from the expectations' own declarations (for
    /// `ringside explain expect`; `ExpectationTimingTests` holds the language reference to it).
    public static var checks: [(check: String, judging: Judging)] {
        var rows: [(String, Judging)] = []
        for check in APNsExpectation.Check.allCases {
            let name = "expect apns" + (check.option.map { " \($0.key)" } ?? "")
            var apns = APNsExpectation(label: "")
            let uncounted = apns.judging(check)
            apns.count = 1
            let counted = apns.judging(check)
            if check == .refusedStreams || check == .refused {
                rows.append((name, uncounted))
            } else {
                rows += [("\(name) without count", uncounted), ("\(name) with count", counted)]
            }
        }
        rows.append(
            ("expect phone", PhoneExpectation(phone: PhoneRef(index: 0, name: ""), outcome: .rang, within: 0).judging))
        for check in ProviderExpectation.Check.allCases {
            let name = "expect provider \(check.option.key)"
            if let field = check.boolean {
                for value in [true, false] {
                    var provider = ProviderExpectation(label: "")
                    provider[keyPath: field] = value
                    rows.append(("\(name): \(value)", provider.judging(check)))
                }
            } else if check == .stopped {
                // Text to find, or `false`: never stopped.
                for text in ["<text>", "false"] {
                    var provider = ProviderExpectation(label: "")
                    provider.stopped = text
                    rows.append(("\(name): \(text)", provider.judging(check)))
                }
            } else {
                rows.append((name, ProviderExpectation(label: "").judging(check)))
            }
        }
        for check in LoadExpectation.Check.allCases {
            rows.append(("expect load \(check.option.key)", LoadExpectation(label: "").judging(check)))
        }
        return rows
    }
}
