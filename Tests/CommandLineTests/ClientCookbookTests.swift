import Foundation
import TestSupport
import Testing

/// docs/clients.md's Python recipes, run as written against `ringside serve --profile voip-lint` with
/// the contract in their environment: each sends one VoIP push that the mock accepts, on a connection
/// authenticated as the recipe says. Each is also run with a CA that did not sign the mock's
/// certificate and with a topic its credentials do not cover, and must fail both: a recipe that
/// skipped verification or ignored the topic would pass the first run and not these.
@Suite(.serialized) struct ClientCookbookTests {
    static let page = Paths.root + "/docs/clients.md"

    /// The recipes the page must hold; one missing (or renamed) fails `everyRecipeIsRun`.
    static let expected = [
        "aioapns-token", "aioapns-certificate", "aioapns-p12", "kalyke-token", "kalyke-certificate",
        "apns2-up-token", "apns2-up-certificate", "aapns-certificate", "django-push-notifications-token",
    ]

    /// A code block whose info string is `python recipe=NAME auth=MODE`.
    struct Recipe {
        var name: String
        var auth: String
        var code = ""
    }

    static func recipes() throws -> [Recipe] {
        let text = try String(contentsOfFile: page, encoding: .utf8)
        var found: [Recipe] = []
        var open: Recipe?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if var recipe = open {
                if line == "```" {
                    found.append(recipe)
                    open = nil
                } else {
                    recipe.code += line + "\n"
                    open = recipe
                }
            } else if line.hasPrefix("```python ") {
                var fields: [String: String] = [:]
                for field in line.dropFirst("```python ".count).split(separator: " ") {
                    let parts = field.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
                }
                if let name = fields["recipe"] { open = Recipe(name: name, auth: fields["auth"] ?? "") }
            }
        }
        return found
    }

    static func recipe(_ name: String) throws -> Recipe {
        try #require(try recipes().first { $0.name == name }, "docs/clients.md has no recipe \(name)")
    }

    /// What the mock recorded while a recipe ran, from its transcript.
    struct Outcome {
        var status: Int32
        var output: String
        /// The push events, in order.
        var pushes: [[String: Any]]
        /// Each connection's `authentication` as it opened (`token`, `certificate <bundle>`).
        var authentications: [Int: String]
        /// Connections closed before their TLS handshake finished.
        var refusals: [String]

        func header(_ name: String, of push: [String: Any]) -> String? {
            (push["request"] as? [String: Any])?[name] as? String
        }
    }

    /// A `ringside serve --profile voip-lint` writing a transcript the runs read.
    final class Mock {
        let transcript = NSTemporaryDirectory() + "ringside-cookbook-\(UUID().uuidString).jsonl"
        let serve: ServeCommandTests.Serve

        init() throws {
            serve = try ServeCommandTests.Serve(["--profile", "voip-lint", "--quiet", "--transcript", transcript])
        }

        deinit {
            _ = serve.interrupt()
            try? FileManager.default.removeItem(atPath: transcript)
        }

        func events() -> [[String: Any]] {
            let text = (try? String(contentsOfFile: transcript, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// Runs `recipe` with the contract, `DEVICE_TOKEN` and `overrides` in its environment, then
        /// reads the transcript until `done` holds for what the mock recorded (5 s at most).
        func run(_ recipe: Recipe, _ overrides: [String: String] = [:], until done: (Outcome) -> Bool) throws
            -> Outcome
        {
            let before = events().count
            let file = NSTemporaryDirectory() + "ringside-recipe-\(recipe.name).py"
            try recipe.code.write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            var environment = serve.contract
            environment["DEVICE_TOKEN"] = Paths.voipToken
            environment.merge(overrides) { $1 }
            let result = try TestSupport.run("/usr/bin/env", ["python3", file], environment: environment)
            var outcome = Outcome(
                status: result.status, output: result.stdout + result.stderr, pushes: [], authentications: [:],
                refusals: [])
            let deadline = Date().addingTimeInterval(5)
            repeat {
                let new = events().dropFirst(before)
                outcome.pushes = new.filter { $0["event"] as? String == "push" }
                outcome.refusals = new.filter { $0["event"] as? String == "connection-refused" }.map {
                    $0["why"] as? String ?? ""
                }
                for event in new where event["event"] as? String == "connection-opened" {
                    if let connection = event["connection"] as? Int {
                        outcome.authentications[connection] = event["authentication"] as? String
                    }
                }
                if done(outcome) { break }
                usleep(50_000)
            } while Date() < deadline
            return outcome
        }

        /// The run must end with one accepted VoIP push, on a connection authenticated as the recipe's
        /// `auth` says.
        func expectAccepted(_ recipe: Recipe, _ overrides: [String: String] = [:]) throws {
            let outcome = try run(recipe, overrides) { !$0.pushes.isEmpty }
            #expect(outcome.status == 0, "\(recipe.name): \(outcome.output)")
            #expect(outcome.pushes.count == 1, "\(recipe.name): \(outcome.pushes)")
            guard let push = outcome.pushes.first else { return }
            #expect(push["status"] as? Int == 200, "\(recipe.name): \(push)")
            #expect(outcome.header("apns-push-type", of: push) == "voip")
            #expect(outcome.header("apns-topic", of: push) == "com.ringside.testapp.voip")
            #expect([nil, "10"].contains(outcome.header("apns-priority", of: push)))
            let connection = push["connection"] as? Int ?? -1
            let authentication = outcome.authentications[connection] ?? "none"
            #expect(authentication.hasPrefix(recipe.auth), "\(recipe.name): \(authentication)")
        }
    }

    @Test("docs/clients.md holds every expected Python recipe, each marked token or certificate")
    func everyRecipeIsRun() throws {
        let found = try Self.recipes()
        #expect(found.map(\.name) == Self.expected)
        #expect(found.allSatisfy { ["token", "certificate"].contains($0.auth) }, "\(found.map(\.auth))")
    }

    @Test(
        "A Python recipe from docs/clients.md sends a VoIP push that voip-lint accepts; with an untrusted CA or a foreign topic it fails",
        arguments: Self.expected)
    func recipeRuns(name: String) throws {
        let recipe = try Self.recipe(name)
        let mock = try Mock()
        try mock.expectAccepted(recipe)

        // untrusted-ca.pem did not sign the mock's certificate: the handshake must fail, no push.
        let untrusted = try mock.run(recipe, ["APNS_CA_FILE": Paths.certs + "/untrusted-ca.pem"]) {
            !$0.refusals.isEmpty
        }
        #expect(untrusted.status != 0, "\(name) trusted a certificate its CA did not sign: \(untrusted.output)")
        #expect(untrusted.pushes.isEmpty, "\(name): \(untrusted.pushes)")
        #expect(!untrusted.refusals.isEmpty, "\(name) never reached the mock: \(untrusted.output)")

        // A topic these credentials do not cover: the mock refuses the push, the recipe says so.
        let foreign = try mock.run(recipe, ["APNS_VOIP_TOPIC": "com.ringside.otherapp.voip"]) { !$0.pushes.isEmpty }
        #expect(foreign.status != 0, "\(name): \(foreign.output)")
        #expect(foreign.pushes.map { $0["status"] as? Int } == [400], "\(name): \(foreign.pushes)")
        #expect(["TopicDisallowed", "BadTopic"].contains(foreign.pushes.first?["reason"] as? String ?? ""))
    }

    @Test(
        "The .p12 recipe authenticates with the certificate in APNS_CERT_P12_LEGACY_FILE, the bundle Go's x/crypto/pkcs12 reads; a .p12 of another certificate is refused"
    )
    func legacyP12Authenticates() throws {
        let recipe = try Self.recipe("aioapns-p12")
        let mock = try Mock()
        let legacy = try #require(mock.serve.contract["APNS_CERT_P12_LEGACY_FILE"])
        #expect(legacy == Paths.certs + "/client-voip.legacy.p12")
        try mock.expectAccepted(recipe, ["APNS_CERT_P12_FILE": legacy])
        // The bundle's certificate is what authenticates: client-novoip lacks the .voip topic.
        let novoip = try mock.run(recipe, ["APNS_CERT_P12_FILE": Paths.certs + "/client-novoip.p12"]) {
            !$0.pushes.isEmpty
        }
        #expect(novoip.status != 0)
        #expect(novoip.pushes.map { $0["reason"] as? String } == ["BadTopic"], "\(novoip.pushes)")
    }
}
