import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing
import World

/// The world behind the mock, in memory (`MemoryMock`): pushes as curl sends them, the control API
/// called as a test suite calls it, time on a manual clock. The same routes and rules as `serve`.
@Suite struct WorldThroughTheMockTests {
    @Test("A push to a phone's VoIP token rings; the outcome explains itself")
    func rings() throws {
        let world = try MemoryMock()
        let phone = try world.phone()
        let response = world.applePush(
            token: phone.voip, body: #"{"callUUID":"call-1","handle":"bob"}"#)
        #expect(response.status == 200)
        let fate = try world.outcome(apnsId: try #require(response.headers["apns-id"]))
        #expect(fate["outcome"] as? String == "rang")
        #expect(fate["caller"] as? String == "bob")
        #expect((fate["explanation"] as? String)?.contains("the phone rings") == true)
    }

    @Test(
        "After a reinstall the old token answers 200 for the configured time, never rings, then 410 with the uninstall time"
    )
    func reinstall() throws {
        let world = try MemoryMock(settings: ["unregisterDelay": 60])
        let phone = try world.phone()
        let before = world.clock.now().world
        let reinstalled =
            try world.control("POST", "/phones/\(phone.id)/apps/com.ringside.testapp/reinstall") as! [String: Any]
        let newToken = ((reinstalled["apps"] as! [[String: Any]])[0]["voipToken"] as! String)
        #expect(newToken != phone.voip)
        let ghost = world.applePush(token: phone.voip)
        #expect(ghost.status == 200)
        let fate = try world.outcome(apnsId: try #require(ghost.headers["apns-id"]))
        #expect(fate["outcome"] as? String == "not-delivered")
        #expect(fate["reason"] as? String == "token-dead")
        try world.control("POST", "/clock/advance", ["seconds": 61])
        let dead = world.applePush(token: phone.voip)
        #expect(dead.status == 410)
        #expect(dead.reason == "Unregistered")
        let body = try JSONSerialization.jsonObject(with: Data(dead.body.utf8)) as! [String: Any]
        let timestamp = (body["timestamp"] as! NSNumber).doubleValue / 1000
        #expect(abs(timestamp - before) < 5, "the timestamp is the reinstall time")
        #expect(world.applePush(token: newToken).status == 200)
        let outcomes = try world.control("GET", "/outcomes") as! [[String: Any]]
        #expect(!outcomes.contains { $0["token"] as? String == phone.voip && $0["outcome"] as? String == "rang" })
    }

    @Test("Offline with apns-expiration 0: not delivered")
    func offlineExpirationZero() throws {
        let world = try MemoryMock()
        let phone = try world.phone(online: false)
        let response = world.applePush(token: phone.voip)
        try world.control("POST", "/phones/\(phone.id)/state", ["online": true])
        let fate = try world.outcome(apnsId: try #require(response.headers["apns-id"]))
        #expect(fate["outcome"] as? String == "not-delivered")
        #expect(fate["reason"] as? String == "offline-not-stored")
    }

    @Test("Offline with expiration an hour ahead, the call over, the phone back online: rang late")
    func ghostCall() throws {
        let world = try MemoryMock()
        let phone = try world.phone(online: false)
        let expiration = Int(world.clock.now().world) + 3600
        let response = world.applePush(
            token: phone.voip, headers: ["apns-expiration": "\(expiration)"])
        #expect(response.status == 200)
        try world.control("POST", "/clock/advance", ["seconds": 120])
        try world.control("POST", "/phones/\(phone.id)/state", ["online": true])
        let fate = try world.outcome(apnsId: try #require(response.headers["apns-id"]))
        #expect(fate["outcome"] as? String == "rang-late")
        #expect((fate["explanation"] as? String)?.contains("ghost call") == true)
    }

    @Test("An app that never reports is killed; after the configured count a later correct push does not ring")
    func neverReports() throws {
        let world = try MemoryMock(settings: ["unreportedLimit": 2])
        let phone = try world.phone("never-reports")
        var outcomes: [[String: Any]] = []
        for call in ["a", "b", "c"] {
            let response = world.applePush(
                token: phone.voip, body: #"{"callUUID":"\#(call)","handle":"bob"}"#)
            outcomes.append(try world.outcome(apnsId: try #require(response.headers["apns-id"])))
        }
        #expect(outcomes.map { $0["outcome"] as? String } == ["app-killed", "app-killed", "not-delivered"])
        #expect(outcomes[0]["reason"] as? String == "delegate-returned-without-report")
        #expect(outcomes[2]["reason"] as? String == "app-blocked")
    }

    @Test("Do Not Disturb: the call is refused by CallKit")
    func doNotDisturb() throws {
        let world = try MemoryMock()
        let phone = try world.phone()
        try world.control("POST", "/phones/\(phone.id)/state", ["doNotDisturb": true])
        let response = world.applePush(token: phone.voip)
        let fate = try world.outcome(apnsId: try #require(response.headers["apns-id"]))
        #expect(fate["outcome"] as? String == "call-refused")
        #expect(fate["reason"] as? String == "filteredByDoNotDisturb")
    }

    @Test("The same seed gives the same tokens and outcomes")
    func sameSeed() throws {
        func run(seed: UInt64) throws -> [String] {
            let world = try MemoryMock(seed: seed)
            let phone = try world.phone("never-reports")
            let response = world.applePush(token: phone.voip)
            let fate = try world.outcome(apnsId: try #require(response.headers["apns-id"]))
            return [phone.voip, phone.alert, fate["outcome"] as? String ?? "", fate["reason"] as? String ?? ""]
        }
        #expect(try run(seed: 5) == run(seed: 5))
        #expect(try run(seed: 5)[0] != run(seed: 6)[0])
    }

    /// `serve --keep N` (docs/control-api.md, "How long"): the latest N events in `GET /transcript`,
    /// and between N/2 and N finished pushes in `GET /outcomes`, the newest always among them.
    /// A fresh world (POST /reset, POST /settings) keeps the bound: it is the process's, not the world's
    /// (an adversary found `--keep 10` remembering 30 after a reset).
    @Test(
        "The control API keeps the latest `kept` events and pushes, and no more, also after the world is reset",
        arguments: ["", "/reset", "/settings"])
    func keptIsBounded(resetBy route: String) throws {
        let jwt = "bearer \(Paths.jwt())"
        for kept in [4, MockOptions.keptByDefault] {
            let world = try MemoryMock(kept: kept)
            if !route.isEmpty {
                let answer = try world.control("POST", route, route == "/settings" ? ["ringTimeout": 30] : [:])
                #expect((answer as? [String: Any])?["error"] == nil, "\(answer)")
            }
            let phone = try world.phone()
            var ids: [String] = []
            for _ in 0..<6 {
                let answer = world.applePush(token: phone.voip, headers: ["authorization": jwt])
                ids.append(try #require(answer.headers["apns-id"]))
            }
            let last = try world.outcome(apnsId: ids[5])["outcome"] as? String
            #expect(last != nil && last != "pending", "the last push's outcome is final: \(last ?? "none")")
            let transcript = try world.control("GET", "/transcript") as! [[String: Any]]
            let outcomes = try world.control("GET", "/outcomes") as! [[String: Any]]
            if kept == 4 {
                #expect(transcript.count == 4, "\(transcript.count) events kept")
                #expect((2...4).contains(outcomes.count), "\(outcomes.count) pushes kept")
            } else {
                // The broken variant's picture: nothing forgotten (6 pushes and their outcomes).
                #expect(transcript.count >= 12, "\(transcript.count) events kept")
                #expect(outcomes.count == 6, "\(outcomes.count) pushes kept")
            }
            #expect(outcomes.last?["apnsId"] as? String == ids[5])
        }
    }

    @Test("A reset world keeps the process's limits: the pushes it remembers and follows at once")
    func resetKeepsLimits() {
        let shared = SharedWorld()
        shared.withWorld {
            $0.keptPushes = 10
            $0.maximumPending = 5
        }
        shared.reset()
        shared.reset(settings: WorldSettings())
        let limits: [Int] = shared.withWorld { [$0.keptPushes, $0.maximumPending] }
        #expect(limits == [10, 5])
    }

    @Test("The same seed gives the same transcript, apart from wall-clock fields")
    func sameTranscript() throws {
        let jwt = "bearer \(Paths.jwt())"  // the provider's input is the same in both runs
        func transcript(seed: UInt64) throws -> [String] {
            let world = try MemoryMock(seed: seed)
            let phone = try world.phone("never-reports")
            let killed = world.applePush(token: phone.voip, headers: ["authorization": jwt])
            _ = try world.outcome(apnsId: try #require(killed.headers["apns-id"]))
            _ = world.applePush(
                token: phone.voip, headers: ["authorization": jwt, "apns-priority": "7"])
            let lines = try world.control("GET", "/transcript") as! [[String: Any]]
            return try lines.map { line in
                var line = line
                for field in ["wallTime", "worldTime", "peer", "sentAt", "finishedAt"] { line[field] = nil }
                line["chain"] = (line["chain"] as? [[String: Any]])?.map { $0.filter { $0.key != "at" } }
                let text = String(
                    decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self)
                return text.replacingOccurrences(
                    of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, with: "<date>", options: .regularExpression)
            }
        }
        let first = try transcript(seed: 11)
        #expect(first.count >= 6)
        let second = try transcript(seed: 11)
        #expect(first == second)
        for (a, b) in zip(first, second) where a != b { Issue.record("differs:\n\(a)\n\(b)") }
    }

    @Test(
        "An app installed later gets its own tokens; without the CallKit entitlement the call is refused (unentitled)")
    func installAndEntitlement() throws {
        let world = try MemoryMock()
        let phone = try world.phone()
        let updated =
            try world.control(
                "POST", "/phones/\(phone.id)/apps", ["bundleId": "com.ringside.otherapp", "entitled": false])
            as! [String: Any]
        let apps = updated["apps"] as! [[String: Any]]
        #expect(apps.count == 2)
        let other = try #require(apps.first { $0["bundleId"] as? String == "com.ringside.otherapp" })
        #expect(other["entitled"] as? Bool == false)
        // com.ringside.otherapp belongs to team RINGTEAM02: sign with its key.
        let jwt = "bearer \(Paths.jwt(keyId: "RINGKEY002", teamId: "RINGTEAM02"))"
        let response = world.applePush(
            token: other["voipToken"] as! String,
            headers: ["authorization": jwt, "apns-topic": "com.ringside.otherapp.voip"])
        #expect(response.status == 200)
        let fate = try world.outcome(apnsId: try #require(response.headers["apns-id"]))
        #expect(fate["outcome"] as? String == "call-refused")
        #expect(fate["reason"] as? String == "unentitled")
    }

    @Test("Control API errors are clear JSON")
    func controlErrors() throws {
        let world = try MemoryMock()
        let unknown = try world.control("GET", "/nothing") as! [String: Any]
        #expect((unknown["error"] as? String)?.contains("no route GET /nothing") == true)
        let badBehaviour =
            try world.control("POST", "/phones", ["apps": [["bundleId": "x", "behaviour": "rings-sometimes"]]])
            as! [String: Any]
        #expect((badBehaviour["error"] as? String)?.contains("<behaviour> takes one of reports-at-once") == true)
        // The control API reads an app as a scenario's `apps:` does (AppDescription): the same
        // rules, in its own spelling, and a near key is suggested.
        for (app, says) in [
            (
                ["bundleId": "x", "roundTripSeconds": 3],
                "<roundTripSeconds> applies only to <behaviour: reports-after-round-trip>"
            ),
            (["bundleId": "x", "reportsWith": "livecomunicationkit"], "did you mean <livecommunicationkit>?"),
            (["bundleId": "x", "roundTripSecond": 3], "did you mean <roundTripSeconds>?"),
            (["bundleId": "x", "ios": "26.4.1.1"], "<ios> takes a version like <26.4>"),
        ] as [([String: Any], String)] {
            let answer = try world.control("POST", "/phones", ["apps": [app]]) as! [String: Any]
            #expect((answer["error"] as? String)?.contains(says) == true, "\(app): \(answer)")
        }
        let framework = try world.control(
            "POST", "/phones", ["apps": [["bundleId": "x", "reportsWith": "livecommunicationkit", "ios": "18.0"]]])
        #expect("\(framework)".contains("livecommunicationkit") || (framework as? [String: Any])?["id"] != nil)
    }
}
