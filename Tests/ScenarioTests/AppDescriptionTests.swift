import APNs
import ScenarioLanguage
import TestSupport
import Testing
import World

/// An app is described the same way in a scenario and to the control API (issue 47): one
/// declaration of its keys (World/AppDescription.swift), one set of checks, each surface in its
/// own spelling — so a misspelt key gets "did you mean" from both, and a key one surface lacked
/// (the control API had no `reports-with`) cannot happen again.
@Suite struct AppDescriptionTests {
    /// A near miss of a key: its last letter doubled.
    static func typo(_ key: String) -> String { key + String(key.last!) }

    @Test(
        "Every app key, misspelt, gets did-you-mean from the checker and from the control API",
        arguments: AppKey.allCases)
    func nearMissEverywhere(key: AppKey) throws {
        let scenario = """
            scenario: t
            phones:
              - name: alice
                apps:
                  - bundle: com.ringside.testapp
                    \(Self.typo(key.scenarioKey)): x
            steps:
              - register: alice

            """
        let diagnostics = Checker.check(SourceFile(path: "t.ring", text: scenario))
        #expect(
            diagnostics.contains { $0.title == "Unknown key" && $0.suggestion == key.scenarioKey }, "\(diagnostics)")

        let mock = try MemoryMock()
        var app: [String: Any] = ["bundleId": "com.ringside.testapp"]
        app[Self.typo(key.jsonKey)] = "x"
        let answer = try #require(try mock.control("POST", "/phones", ["apps": [app]]) as? [String: Any])
        #expect((answer["error"] as? String)?.contains("did you mean <\(key.jsonKey)>?") == true, "\(answer)")
    }

    @Test("The scenario and the control API give the same app for the same description")
    func sameSpec() throws {
        let values: [AppKey: AppValue] = [
            .bundle: .text("com.ringside.testapp"), .ios: .text("17.4"), .behaviour: .text("reports-after-round-trip"),
            .roundTrip: .seconds(3), .blocking: .boolean(true), .environment: .text("production"),
            .entitled: .boolean(false), .reportsWith: .text("livecommunicationkit"),
        ]
        #expect(Set(values.keys) == Set(AppKey.allCases), "every key has a value here")
        let (spec, problems) = AppDescription.spec(values, environment: .sandbox)
        #expect(problems.isEmpty)
        let plan = try #require(
            Checker.plan(
                SourceFile(
                    path: "t.ring",
                    text: """
                        scenario: t
                        phones:
                          - name: alice
                            apps:
                              - bundle: com.ringside.testapp
                                ios: "17.4"
                                behaviour: reports-after-round-trip
                                round-trip: 3s
                                blocking: true
                                environment: production
                                entitled: false
                                reports-with: livecommunicationkit
                        steps:
                          - register: alice

                        """)
            ).plan)
        let scenarioApp = try #require(plan.phones.first?.apps.first)
        let mock = try MemoryMock()
        let json: [String: Any] = [
            "bundleId": "com.ringside.testapp", "ios": "17.4", "behaviour": "reports-after-round-trip",
            "roundTripSeconds": 3, "blocking": true, "environment": "production", "entitled": false,
            "reportsWith": "livecommunicationkit",
        ]
        let phone = try #require(try mock.control("POST", "/phones", ["apps": [json]]) as? [String: Any])
        let apps = try #require(phone["apps"] as? [[String: Any]])
        for app in [spec!, scenarioApp] {
            #expect(app.ios == OSVersion(17, 4) && app.behaviour == .reportsAfterRoundTrip(seconds: 3, blocking: true))
            #expect(app.environment == .production && !app.isEntitled && app.framework == .liveCommunicationKit)
        }
        #expect(apps.first?["behaviour"] as? String == "reports-after-round-trip", "\(apps)")
        #expect(apps.first?["environment"] as? String == "production", "\(apps)")
    }
}
