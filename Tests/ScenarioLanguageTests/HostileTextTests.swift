import ScenarioLanguage
import Testing

/// Text an adversary wrote: each was once accepted and run otherwise than it reads.
@Suite struct HostileTextTests {
    func plan(_ text: String) -> (plan: ScenarioPlan?, diagnostics: [Diagnostic]) {
        Checker.plan(SourceFile(path: "t.ring", text: text))
    }

    @Test("CR LF ends a line: the next line is not swallowed into the one before")
    func crlf() throws {
        let checked = plan("scenario: x\r\nsteps:\r\n  - expect apns: five\r\n    count: 5\r\n")
        let steps = try #require(checked.plan?.steps)
        guard case .expectAPNs(let expectation) = steps.first?.action else {
            Issue.record("not an expect apns step: \(checked.diagnostics.map(\.detail))")
            return
        }
        #expect(expectation.label == "five")
        #expect(expectation.count == 5)
    }

    @Test("`| ` with a trailing space or a comment opens a text block, as `|` does")
    func textBlockMarker() throws {
        for marker in ["|", "| ", "| # why"] {
            let checked = plan("scenario: x\nteaches: \(marker)\n  two\n  lines\nsteps:\n  - advance: 1s\n")
            #expect(checked.diagnostics.isEmpty, "<\(marker)>: \(checked.diagnostics.map(\.detail))")
            #expect(checked.plan?.teaches == "two\nlines", "<\(marker)>")
        }
    }

    @Test("A byte-order mark is not part of the first key")
    func byteOrderMark() {
        #expect(plan("\u{FEFF}scenario: x\nsteps:\n  - advance: 1s\n").diagnostics.isEmpty)
    }

    @Test("NUL, a lone carriage return and other control characters are refused where they stand")
    func controlCharacters() {
        for text in ["scenario: x\nsteps:\n  - exec: true\u{0} && false\n", "scenario: x\rsteps:\n  - advance: 1s\n"] {
            #expect(plan(text).diagnostics.map(\.title) == ["Control character"])
        }
    }

    @Test("A value that starts with a quote is one quoted string: text after its closing quote is refused")
    func quotes() {
        #expect(
            plan("scenario: x\nsteps:\n  - exec: \"false\" \"|| true\"\n").diagnostics.map(\.title) == [
                "Unclosed quote"
            ])
        let escaped = plan("scenario: x\nsteps:\n  - exec: \"echo \\\"x\\\"\"\n")
        guard case .exec(let template)? = escaped.plan?.steps.first?.action else {
            Issue.record("not an exec step: \(escaped.diagnostics.map(\.detail))")
            return
        }
        #expect(template.text == "echo \"x\"")
    }

    @Test(
        "A malformed iOS version is refused, not read as another one",
        arguments: ["99999999999999999999.1", ".5", "26..4", "26.4.1.9.9", "x", "0"])
    func iosVersions(version: String) {
        let text =
            "scenario: x\nphones:\n  - name: a\n    apps:\n      - bundle: b\n        ios: \"\(version)\"\nsteps:\n  - advance: 1s\n"
        #expect(plan(text).diagnostics.map(\.title) == ["Not an iOS version"])
    }

    @Test("Templates are filled in one pass; {{ and }} are braces")
    func templates() {
        let template = Template(
            text: "awk '{{print}}' {user} {token}",
            range: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1))
        #expect(template.filled([.user: "{token}", .token: "t"]) == "awk '{print}' {token} t")
        #expect(plan("scenario: x\nsteps:\n  - exec: awk '{{print}}' /dev/null\n").diagnostics.isEmpty)
    }

    @Test("A placeholder in a `|` block or after escaped quotes is reported where it stands")
    func placeholderPositions() {
        let block = plan("scenario: x\nsteps:\n  - exec: |\n      true\n      echo {bogus}\n")
        #expect(block.diagnostics.map { "\($0.range.start)" } == ["5:12"])
        let quoted = plan("scenario: x\nsteps:\n  - exec: \"echo \\\"x\\\" {bogus}\"\n")
        #expect(quoted.diagnostics.map { "\($0.range.start)" } == ["3:23"])
    }

    @Test("Names are refused when they could not be put into a command or JSON as they are")
    func names() {
        let text = "scenario: x\nphones:\n  - name: a\nsteps:\n  - register: a\n    as: \"{dir}\"\n"
        #expect(plan(text).diagnostics.map(\.title) == ["Not a name"])
        #expect(plan("scenario: \"\"\nsteps:\n  - advance: 1s\n").diagnostics.map(\.title) == ["Empty name"])
        #expect(plan("scenario: x\nsteps: []\n").diagnostics.map(\.title) == ["No steps"])
    }

    @Test("A phone with more than 1000 apps is refused at the first one too many, quickly")
    func tooManyApps() {
        let apps = (0...1000).map { "      - bundle: com.example.app\($0)\n" }.joined()
        let checked = plan("scenario: x\nphones:\n  - name: alice\n    apps:\n" + apps + "steps:\n  - advance: 1s\n")
        #expect(checked.diagnostics.map(\.title) == ["Too many apps"])
        #expect(checked.diagnostics.first?.range.start.line == 1005)
    }
}
