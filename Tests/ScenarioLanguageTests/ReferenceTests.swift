import APNs
import ScenarioLanguage
import Testing
import World

/// Names that point nowhere are refused at `check` time, where they are written, with "did you
/// mean"; the plan carries what they resolve to.
@Suite struct ReferenceTests {
    static let head = """
        scenario: references
        phones:
          - name: alice
          - name: carol
            apps:
              - bundle: com.ringside.testapp
              - bundle: com.example.other
        steps:
          - register: alice
          - register: carol
            as: team
          - call: alice
            as: first

        """

    /// (the steps after the head, the problem's title, line:column, a piece of its detail, the suggestion)
    static let dangling: [(String, String, String, String, String?)] = [
        ("  - expect phone: alice\n    outcome: rang\n    call: second\n", "Unknown call", "16:11", "<second>", nil),
        ("  - expect phone: alice\n    outcome: rang\n    call: frist\n", "Unknown call", "16:11", "<frist>", "first"),
        (
            "  - expect phone: carol\n    outcome: rang\n    call: first\n", "Not this phone's call", "16:11",
            "rang <alice>", nil
        ),
        ("  - expect provider: tokens\n    never-pushes: zed\n", "Unknown phone", "15:19", "<zed>", nil),
        ("  - expect provider: tokens\n    never-pushes: alcie\n", "Unknown phone", "15:19", "<alcie>", "alice"),
        ("  - expect provider: back-off\n    retried: three\n", "Not a whole number", "15:14", "<three>", nil),
        ("  - expect apns: x\n    within: soon\n", "Not a duration", "15:13", "<soon>", nil),
        ("  - expect apns: x\n    phone: bob\n", "Unknown phone", "15:12", "<bob>", nil),
        ("  - expect apns: x\n    status: 418\n", "Not an APNs status", "15:13", "418", nil),
        ("  - expect apns: x\n    status: 400\n    reason: Unregistered\n", "Never happens", "16:13", "410", nil),
        ("  - expect apns: x\n    reason: unregistered\n", "Unknown reason", "15:13", "<unregistered>", "Unregistered"),
        ("  - expect apns: x\n    header: no colon here\n", "Not a header", "15:13", "name: value", nil),
        (
            "  - expect phone: alice\n    outcome: rang\n    reason: expired\n", "Unknown reason", "16:13",
            "has no reason", nil
        ),
        (
            "  - expect phone: alice\n    outcome: not-delivered\n    reason: expird\n", "Unknown reason", "16:13",
            "<expird>", "expired"
        ),
        ("  - expect phone: alice\n", "Missing key", "14:5", "needs <outcome>", nil),
        ("  - call: bob\n", "Unknown user", "14:11", "<bob>", nil),
        ("  - call: taem\n", "Unknown user", "14:11", "<taem>", "team"),
        ("  - call: alice\n    as: first\n", "Duplicate call name", "15:9", "<first>", nil),
        ("  - unregister: carol\n    as: team\n", "Unknown key", "15:5", "<as>", "app"),
        ("  - unregister: carol\n  - unregister: carol\n", "Not registered", "15:17", "not registered", nil),
        ("  - register: alice\n    app: com.example.missing\n", "Unknown app", "15:10", "<com.example.missing>", nil),
        (
            "  - reinstall: carol\n    app: com.example.othr\n", "Unknown app", "15:10", "<com.example.othr>",
            "com.example.other"
        ),
        ("  - offline: dave\n", "Unknown phone", "14:14", "<dave>", nil),
        ("  - fault: goaway\n    after-accepted: -1\n", "Not a whole number", "15:21", "from 1 to 1000000", nil),
        ("  - fault: goaway\n    after-accepted: 0\n", "Out of range", "15:21", "from 1 to 1000000", nil),
        ("  - fault: ServiceUnavailable\n    count: +2\n", "Not a whole number", "15:12", "<+2>", nil),
        ("  - fault: goaway\n    count: 2\n", "Not for this fault", "15:5", "<count> does not apply", nil),
        ("  - fault: delay\n", "Missing key", "14:12", "needs <seconds>", nil),
        ("  - fault: answer\n", "Unknown fault", "14:12", "write the APNs reason", nil),
        ("  - fault: ServiceUnavailable\n    phone: zed\n", "Unknown phone", "15:12", "<zed>", nil),
        ("  - wait: 2m\n", "Not a duration", "14:11", "at most 60s", nil),
        ("  - advance: 1e300s\n", "Not a duration", "14:14", "<1e300s>", nil),
        ("  - exec: echo {tokn}\n", "Unknown placeholder", "14:16", "<{tokn}>", nil),
        ("  - exec: echo {token}\n", "Not filled in here", "14:16", "not <{token}>", nil),
        ("  - call: alice\n    from: \"o'brien\"\n", "Not a caller", "15:11", "handle", nil),
    ]

    @Test("A dangling reference or an out-of-range value is refused at its line", arguments: dangling.indices)
    func refused(index: Int) {
        let (steps, title, location, detail, suggestion) = Self.dangling[index]
        let problems = Checker.check(SourceFile(path: "test.ring", text: Self.head + steps))
        #expect(problems.count == 1, "\(problems.map(\.detail))")
        let problem = problems.first
        #expect(problem?.title == title)
        #expect(problem.map { "\($0.range.start)" } == location)
        #expect(problem?.detail.contains(detail) == true, "\(problem?.detail ?? "")")
        #expect(problem?.suggestion == suggestion)
    }

    @Test("The head alone checks, and its references resolve to phones, users and apps")
    func resolves() throws {
        let checked = Checker.plan(SourceFile(path: "test.ring", text: Self.head))
        #expect(checked.diagnostics.isEmpty, "\(checked.diagnostics)")
        let plan = try #require(checked.plan)
        guard case .register(let phone, let user, let app, let kind) = plan.steps[1].action else {
            Issue.record("not a register step")
            return
        }
        #expect(phone == PhoneRef(index: 1, name: "carol"))
        #expect(user == "team")
        #expect(app == "com.ringside.testapp")
        #expect(kind == .voip)
        #expect(plan.steps[1].range.start == SourceLocation(line: 10, column: 5))
    }

    @Test("Provider words that would be ignored are refused: auth for an exec provider, certificate without it")
    func providerWords() {
        let exec = Checker.check(
            SourceFile(
                path: "t.ring",
                text:
                    "scenario: a\napns:\n  auth: certificate\nprovider:\n  exec: curl {url}\nsteps:\n  - advance: 1s\n")
        )
        #expect(exec.map(\.title) == ["Not for this provider"])
        let certificate = Checker.check(
            SourceFile(path: "t.ring", text: "scenario: a\napns:\n  certificate: expired\nsteps:\n  - advance: 1s\n"))
        #expect(certificate.map(\.title) == ["Not used"])
        let two = Checker.check(
            SourceFile(
                path: "t.ring",
                text: "scenario: a\nprovider:\n  builtin: reference\n  exec: curl\nsteps:\n  - advance: 1s\n"))
        #expect(two.map(\.title) == ["Two providers"])
        let template = Checker.check(
            SourceFile(
                path: "t.ring",
                text:
                    "scenario: a\nphones:\n  - name: a\nprovider:\n  http: python3 x.py\nsteps:\n  - register: a\n"))
        #expect(template.map(\.title) == ["No template"])
    }

    @Test("A megabyte-long unknown value is refused at once, without a suggestion")
    func longValue() {
        let long = String(repeating: "x", count: 1_000_000)
        let problems = Checker.check(
            SourceFile(path: "t.ring", text: "scenario: a\nsteps:\n  - fault: \(long)\n"))
        #expect(problems.map(\.title) == ["Unknown fault"])
        #expect(problems.first?.suggestion == nil)
        #expect((problems.first?.detail.count ?? .max) < 300)
    }
}
