import ScenarioLanguage
import Testing

/// Words `check` let through that pointed nowhere (the second adversary of issue 9): steps on an
/// uninstalled app, misspelt placeholders, empty texts. Pure: the checker alone.
@Suite struct CheckTimeTests {
    static func problems(_ body: String) -> [String] {
        Checker.check(SourceFile(path: "t.ring", text: "scenario: t\n" + body)).map {
            "\($0.range.start.line):\($0.range.start.column) \($0.title)"
        }
    }

    @Test("check refuses steps on an uninstalled app, a call placed before the phone registered, empty texts")
    func danglingAtCheckTime() {
        let phones = "phones:\n  - name: alice\n  - name: bob\n"
        #expect(
            Self.problems(phones + "steps:\n  - register: alice\n  - uninstall: alice\n  - register: alice\n")
                == ["8:15 Not installed"])
        #expect(
            Self.problems(
                phones
                    + "steps:\n  - register: alice\n  - uninstall: alice\n  - force-quit: alice\n  - uninstall: alice\n  - fault: ServiceUnavailable\n    phone: alice\n"
            ) == ["8:17 Not installed", "9:16 Not installed", "11:12 Not installed"])
        #expect(
            Self.problems(
                phones
                    + "steps:\n  - register: bob\n    as: team\n  - call: team\n    as: c1\n  - register: alice\n    as: team\n  - expect phone: alice\n    outcome: rang\n    call: c1\n"
            ) == ["14:11 Not this phone's call"])
        #expect(
            Self.problems(
                phones + "steps:\n  - expect apns: a\n    refused:\n  - expect provider: b\n    stopped: \"\"\n")
                == ["7:13 Empty value", "9:14 Empty value"])
        // A GOAWAY is no request: an option that judges requests beside goaway: would be ignored.
        #expect(
            Self.problems(phones + "steps:\n  - expect apns: a\n    goaway: Shutdown\n    status: 200\n")
                == ["8:5 Not with goaway"])
        // Reinstalling before the uninstall is fine; the registration after a reinstall is too.
        #expect(
            Self.problems(phones + "steps:\n  - reinstall: alice\n  - register: alice\n  - uninstall: alice\n").isEmpty)
    }

    @Test(
        "A brace pair that looks meant as a placeholder is one, and refused unless it is known",
        arguments: ["{call_id}", "{user2}", "{ user }", "{tokén}", "{Token}"])
    func misspeltPlaceholders(_ written: String) {
        let found = Self.problems(
            "phones:\n  - name: alice\nprovider:\n  exec: echo \(written) {token}\nsteps:\n  - register: alice\n")
        #expect(found == ["5:14 Unknown placeholder"], "\(found)")
    }

    @Test("JSON braces, {} and escaped braces stay text")
    func bracesThatAreText() {
        #expect(
            Self.problems(
                "phones:\n  - name: alice\nprovider:\n  exec: echo '{\"a\":1}' {} {{x}} {token}\nsteps:\n  - register: alice\n"
            ).isEmpty)
    }
}
