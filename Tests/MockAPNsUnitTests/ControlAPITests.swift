import APNs
import Foundation
import TestSupport
import Testing
import World

@testable import MockAPNs

/// What the control API's routes answer — numbers in range, strict routes, paging and its header
/// fields, bounds — over HTTP/2 in memory through its own connection handler (`MemoryMock.control`),
/// or straight from `ControlAPI.respond`. Its transport over sockets (HTTP/1.1, a split preface,
/// large bodies, the connection cap) is tested on loopback in MockAPNsTests.
@Suite struct ControlAPITests {
    @Test(
        "Fault numbers out of range, of the wrong type or for another action get 400 and the mock keeps serving",
        arguments: [
            #"{"reason": "ServiceUnavailable", "count": 1e300}"#, #"{"reason": "ServiceUnavailable", "count": 1.5}"#,
            #"{"reason": "ServiceUnavailable", "connection": -1}"#, #"{"action": "goaway", "afterAccepted": "nan"}"#,
            #"{"action": "delay", "seconds": 3000000}"#, #"{"action": "delay", "seconds": "inf"}"#,
            #"{"action": "drop", "seconds": 1}"#, #"{"action": "explode"}"#, #"{"reason": "NoSuchReason"}"#,
            #"{"action": "stale-connections", "idleSeconds": -1}"#,
            #"{"action": "lower-streams-after-rejection", "on": 1}"#,
        ])
    func faultNumbers(body: String) throws {
        let world = try MemoryMock()
        let data = try #require(body.data(using: .utf8))
        let input = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let answer = try world.control("POST", "/faults", input) as? [String: Any]
        #expect(answer?["error"] is String, "\(answer ?? [:])")
        let health = try world.control("GET", "/health") as? [String: Any]
        #expect(health?["status"] as? String == "ok")
    }

    @Test(
        "World settings, app and phone fields out of range, of the wrong type or unknown get 400, change nothing, and pushes still ring",
        arguments: [
            ("/settings", #"{"tokenBytes": 1000000000}"#), ("/settings", #"{"tokenBytes": -1}"#),
            ("/settings", #"{"ringTimeout": 1e300}"#), ("/settings", #"{"deliveryLatency": -5}"#),
            ("/settings", #"{"throttle": {"count": 1e12, "window": 60}}"#),
            ("/settings", #"{"folklore": {"dailyVoIPBudget": -3}}"#),
            ("/phones", #"{"apps": [{"bundleId": "a.b", "roundTripSeconds": "inf"}]}"#),
            ("/phones", #"{"apps": [{"bundleId": "a.b", "roundTripSeconds": 1e300}]}"#),
            ("/phones", #"{"apps": [{"bundleId": "a.b", "enviroment": "production"}]}"#),
            ("/phones", #"{"apps": [{"bundleId": "a.b", "environment": "prodution"}]}"#),
            ("/phones", #"{"apps": [{"bundleId": "a.b", "entitled": 0}]}"#),
            ("/phones", #"{"name": "x", "onlin": false}"#), ("/phones", #"{"online": "no"}"#),
            ("/phones", #"{"apps": "com.ringside.testapp"}"#),
            ("/phones", #"{"apps": [{"bundleId": "x", "ios": 26.4}]}"#),
            ("/phones", #"{"apps": [{"bundleId": "x", "behaviour": 5}]}"#), ("/settings", #"{"x": 1}"#),
            ("/phones", #"{"apps": [{"bundleId": ""}]}"#),
            ("/phones/0/state", #"{"online": 1}"#), ("/phones/0/state", #"{"doNotDisturb": true, "vip": ["a"]}"#),
            ("/phones/0/state", #"{"blockedCallers": "bob"}"#), ("/phones/0/state", #"{"activeCall": 5}"#),
        ])
    func worldNumbers(path: String, body: String) throws {
        let world = try MemoryMock()
        let phone = try world.phone()
        let before = try world.control("GET", "/phones/0") as? [String: Any]
        let input = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let answer = try world.control("POST", path, input) as? [String: Any]
        #expect(answer?["error"] is String, "\(answer ?? [:])")
        let after = try world.control("GET", "/phones/0") as? [String: Any]
        #expect(after?["doNotDisturb"] as? Bool == before?["doNotDisturb"] as? Bool)
        #expect(after?["online"] as? Bool == true, "a bad request changes nothing")
        let listed = try world.control("GET", "/phones") as? [String: Any]
        #expect(listed?["total"] as? Int == 1, "nothing added")
        #expect(world.applePush(token: phone.voip).status == 200)
    }

    @Test("GET /phones is paged: offset and limit in range, a next path until the last page; out of range is 400")
    func phonesPaged() throws {
        let world = try MemoryMock()
        for _ in 0..<5 { _ = try world.phone() }
        let first = try #require(try world.control("GET", "/phones?limit=2") as? [String: Any])
        #expect((first["phones"] as? [[String: Any]])?.map { $0["id"] as? Int } == [0, 1])
        #expect(first["total"] as? Int == 5)
        #expect(first["next"] as? String == "/phones?offset=2&limit=2")
        let last = try #require(try world.control("GET", "/phones?offset=4&limit=2") as? [String: Any])
        #expect((last["phones"] as? [Any])?.count == 1)
        #expect(last["next"] is NSNull)
        let beyond = try #require(try world.control("GET", "/phones?offset=999999999") as? [String: Any])
        #expect((beyond["phones"] as? [Any])?.isEmpty == true)
        for query in ["limit=0", "limit=1001", "offset=-1", "offset=1e3", "limit=99999999999999999999", "page=2"] {
            let answer = try world.control("GET", "/phones?" + query) as? [String: Any]
            #expect(answer?["error"] is String, "\(query): \(answer ?? [:])")
        }
    }

    @Test("The control API's transcript keeps a request's first kilobyte and its length; the JSONL file keeps it whole")
    func transcriptBufferKeepsAKilobyte() throws {
        let server = try MemoryMock.protocolOnly()
        let payload = #"{"aps":{},"pad":""# + String(repeating: "x", count: 4900) + #""}"#
        #expect(server.applePush(body: payload).status == 200)
        guard
            case .push(let kept)? = server.assembly.transcript.kept.first(where: {
                if case .push = $0 { true } else { false }
            })
        else {
            Issue.record("no push kept")
            return
        }
        #expect(kept.request.body.count == TranscriptBuffer.keptBytes)
        #expect(kept.request.bodyLength == payload.utf8.count)
        let line = TranscriptWriter.render(.push(kept))
        #expect(
            line.contains("\"bodyLength\":\(payload.utf8.count)") && line.contains("\"bodyStart\""),
            "\(line.prefix(300))")
        let whole = try #require(server.events.pushes.first)
        #expect(TranscriptWriter.render(.push(whole)).contains("\"body\":"), "the file's record is whole")
    }

    @Test("The transcript buffer is a ring: once full it keeps the latest events, oldest first")
    func transcriptRing() {
        let buffer = TranscriptBuffer(capacity: 3)
        for id in 1...5 { buffer.observe(.connectionClosed(connection: UInt64(id), why: "w", at: Moment(0))) }
        let ids = buffer.kept.compactMap { event -> UInt64? in
            if case .connectionClosed(let id, _, _) = event { id } else { nil }
        }
        #expect(ids == [3, 4, 5])
        buffer.clear()
        buffer.observe(.connectionClosed(connection: 9, why: "w", at: Moment(0)))
        #expect(buffer.kept.count == 1)
    }

    @Test("A clock advance that is infinite, a string or beyond a century gets 400; the mock keeps serving")
    func clockAdvance() throws {
        let world = try MemoryMock()
        for seconds in [1e19 as Any, "inf", "nan", -1 as Any, 1e16 as Any] {
            let answer = try world.control("POST", "/clock/advance", ["seconds": seconds]) as? [String: Any]
            #expect(answer?["error"] is String, "\(seconds): \(answer ?? [:])")
        }
        let phone = try world.phone()
        let response = world.applePush(token: phone.voip)
        #expect(response.status == 200)
    }

    @Test("apns-expiration at Int64.max to an offline phone is stored, then delivered, without a trap")
    func expirationAtTheEdge() throws {
        let world = try MemoryMock()
        let phone = try world.phone(online: false)
        let response = world.applePush(
            token: phone.voip, headers: ["apns-expiration": "9223372036854775807"])
        #expect(response.status == 200)
        _ = try world.control("POST", "/phones/\(phone.id)/state", ["online": true])
        let fate = try world.outcome(apnsId: try #require(response.headers["apns-id"]))
        #expect(fate["outcome"] as? String == "rang")
    }

    @Test(
        "Routes are matched strictly: doubled or trailing slashes and phone ids that are not plain digits are 404",
        arguments: [
            "//phones", "/health/", "/phones/+0", "/phones/0x1", "/phones/ 0", "/", "/phones//state", "", "/phones/00",
            "/phones/007",
        ])
    func strictRoutes(path: String) throws {
        let world = try MemoryMock()
        _ = try world.phone()
        let answer = world.assembly.control!.respond(method: "GET", path: path, body: [])
        #expect(answer.status == 404, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
        #expect(world.assembly.control!.respond(method: "GET", path: "/phones/0", body: []).status == 200)
    }

    @Test(
        "GET /outcomes and /transcript are paged: the newest 1000 by default, offset and limit, x-total-count and link")
    func outcomesAndTranscriptPaged() throws {
        let world = try MemoryMock()
        let phone = try world.phone()
        for _ in 0..<3 { #expect(world.applePush(token: phone.voip).status == 200) }
        let all = world.controlAnswer("/outcomes")
        #expect((all.json as? [Any])?.count == 3)
        #expect(all.headers["x-total-count"] == "3")
        #expect(all.headers["link"] == nil)
        let newest = world.controlAnswer("/outcomes?limit=1")
        #expect(
            (newest.json as? [[String: Any]])?.first?["apnsId"] as? String == (all.json as? [[String: Any]])?.last?[
                "apnsId"] as? String)
        #expect(newest.headers["link"] == #"</outcomes?offset=1&limit=1>; rel="prev""#)
        let first = world.controlAnswer("/outcomes?offset=0&limit=2")
        #expect((first.json as? [Any])?.count == 2)
        #expect(first.headers["link"] == #"</outcomes?offset=2&limit=2>; rel="next""#)
        let transcript = world.controlAnswer("/transcript")
        let total = try #require(Int(transcript.headers["x-total-count"] ?? ""))
        #expect((transcript.json as? [Any])?.count == total)
        let last = world.controlAnswer("/transcript?offset=1&limit=1")
        #expect((last.json as? [Any])?.count == 1)
        #expect(last.headers["link"]?.contains(#"</transcript?offset=2&limit=1>; rel="next""#) == true)
        for query in ["limit=0", "limit=1001", "offset=-1", "offset=1&offset=2", "from=3", "limit="] {
            for route in ["/outcomes", "/transcript"] {
                let answer = world.controlAnswer(route + "?" + query)
                #expect(answer.status == 400, "\(route)?\(query)")
            }
        }
    }

    @Test(
        "A phone holds at most 1000 apps: more in POST /phones is 400, one more installed is 409, a reinstall still works"
    )
    func appsPerPhoneBounded() throws {
        let world = try MemoryMock()
        let api = world.assembly.control!
        func post(_ path: String, _ object: Any) throws -> Int {
            api.respond(method: "POST", path: path, body: Array(try JSONSerialization.data(withJSONObject: object)))
                .status
        }
        let apps = (0...VirtualPhone.maximumApps).map { ["bundleId": "com.example.app\($0)"] }
        #expect(try post("/phones", ["apps": apps]) == 400)
        #expect(try post("/phones", ["apps": Array(apps.dropLast())]) == 201)
        #expect(try post("/phones/0/apps", ["bundleId": "com.example.one-more"]) == 409)
        #expect(try post("/phones/0/apps", ["bundleId": "com.example.app7"]) == 201, "a reinstall replaces")
    }

    @Test("The control token is 64 hex digits from the system's generator, compared whole")
    func controlToken() {
        let a = ControlToken.make()
        #expect(a.count == 64 && a.allSatisfy(\.isHexDigit))
        #expect(a != ControlToken.make())
        #expect(ControlToken.matches("Bearer " + a, a) && ControlToken.matches("bearer " + a, a))
        #expect(!ControlToken.matches("Bearer " + a.dropLast() + "0", a) || a.last == "0")
        #expect(!ControlToken.matches("Bearer " + a + "0", a) && !ControlToken.matches(nil, a))
    }

    @Test("At most 1000 faults are armed at once: one more is 409 until they are disarmed")
    func faultsBounded() throws {
        let world = try MemoryMock()
        let api = world.assembly.control!
        let body = Array(#"{"reason": "ServiceUnavailable", "count": 5, "token": "AB"}"#.utf8)
        for _ in 0..<FaultPlan.maximumArmed {
            #expect(api.respond(method: "POST", path: "/faults", body: body).status == 201)
        }
        #expect(api.respond(method: "POST", path: "/faults", body: body).status == 409)
        #expect(api.respond(method: "DELETE", path: "/faults", body: []).status == 200)
        #expect(api.respond(method: "POST", path: "/faults", body: body).status == 201)
    }

    @Test("A page of GET /phones ends before 2,000 apps, whatever the limit; next goes on from there")
    func phonesPagedByApps() throws {
        let world = try MemoryMock()
        let api = world.assembly.control!
        let apps = (0..<VirtualPhone.maximumApps).map { ["bundleId": "com.example.app\($0)"] }
        let body = Array(try JSONSerialization.data(withJSONObject: ["apps": apps]))
        for _ in 0..<3 { #expect(api.respond(method: "POST", path: "/phones", body: body).status == 201) }
        let answer = api.respond(method: "GET", path: "/phones?limit=1000", body: [])
        let page = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        #expect((page["phones"] as? [Any])?.count == 2)
        #expect(page["next"] as? String == "/phones?offset=2&limit=1000")
        #expect(page["total"] as? Int == 3)
    }
}
