import APNs
import Foundation
import MockAPNs
import Testing

/// The control API's cleartext port: HTTP/2 with prior knowledge or HTTP/1.1, whatever the network
/// does to the first bytes, and bodies larger than a push's.
@Suite struct ControlAPITransportTests {
    static func phone(named name: String) -> [String: Any] {
        [
            "headers": [
                [":method", "POST"], [":scheme", "http"], [":authority", "localhost"], [":path", "/phones"],
                ["content-type", "application/json"],
            ],
            "body": String(decoding: try! JSONSerialization.data(withJSONObject: ["name": name]), as: UTF8.self),
        ]
    }

    @Test("An HTTP/2 preface split across two reads is still HTTP/2, not HTTP/1.1 400")
    func splitPreface() throws {
        let world = try WorldServer()
        let port = world.assembly.controlServer!.port
        for split in [false, true] {
            let result = try Probe.run([
                "port": Int(port), "plaintext": true, "split_preface": split, "requests": [Self.phone(named: "bob")],
            ])
            let response = (result["responses"] as? [[String: Any]])?.first
            #expect((response?["headers"] as? [String: String])?[":status"] == "201", "split \(split): \(result)")
        }
    }

    @Test("A JSON body over 8 KiB sent over HTTP/2 arrives whole; one over 1 MiB gets 413")
    func largeBodies() throws {
        let world = try WorldServer()
        let port = Int(world.assembly.controlServer!.port)
        let long = String(repeating: "a", count: 20_000)
        let result = try Probe.run(["port": port, "plaintext": true, "requests": [Self.phone(named: long)]])
        let response = try #require((result["responses"] as? [[String: Any]])?.first)
        #expect((response["headers"] as? [String: String])?[":status"] == "201", "\(result)")
        let body = try #require((response["body"] as? String)?.data(using: .utf8))
        let phone = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect((phone["name"] as? String)?.count == 20_000)

        var huge = Self.phone(named: "")
        huge["body_bytes"] = ControlAPI.maximumBody + 10
        let tooLarge = try Probe.run(["port": port, "plaintext": true, "wait": 10, "requests": [huge]])
        let refused = (tooLarge["responses"] as? [[String: Any]])?.first
        #expect((refused?["headers"] as? [String: String])?[":status"] == "413", "\(tooLarge["error"] ?? "")")
    }

    @Test(
        "Fault numbers out of range, of the wrong type or for another action get 400 and the mock keeps serving",
        arguments: [
            #"{"reason": "ServiceUnavailable", "count": 1e300}"#, #"{"reason": "ServiceUnavailable", "count": 1.5}"#,
            #"{"reason": "ServiceUnavailable", "connection": -1}"#, #"{"action": "goaway", "afterAccepted": "nan"}"#,
            #"{"action": "delay", "seconds": 3000000}"#, #"{"action": "delay", "seconds": "inf"}"#,
            #"{"action": "drop", "seconds": 1}"#, #"{"action": "explode"}"#, #"{"reason": "NoSuchReason"}"#,
            #"{"action": "stale-connections", "idleSeconds": -1}"#,
        ])
    func faultNumbers(body: String) throws {
        let world = try WorldServer()
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
            ("/phones/0/state", #"{"online": 1}"#), ("/phones/0/state", #"{"doNotDisturb": true, "vip": ["a"]}"#),
            ("/phones/0/state", #"{"blockedCallers": "bob"}"#), ("/phones/0/state", #"{"activeCall": 5}"#),
        ])
    func worldNumbers(path: String, body: String) throws {
        let world = try WorldServer()
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
        #expect(try Curl.applePush(world.server, token: phone.voip).status == 200)
    }

    @Test("GET /phones is paged: offset and limit in range, a next path until the last page; out of range is 400")
    func phonesPaged() throws {
        let world = try WorldServer()
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
        let server = try MockServer()
        let payload = #"{"aps":{},"pad":""# + String(repeating: "x", count: 4900) + #""}"#
        #expect(try Curl.applePush(server, body: payload).status == 200)
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
        let world = try WorldServer()
        for seconds in [1e19 as Any, "inf", "nan", -1 as Any, 1e16 as Any] {
            let answer = try world.control("POST", "/clock/advance", ["seconds": seconds]) as? [String: Any]
            #expect(answer?["error"] is String, "\(seconds): \(answer ?? [:])")
        }
        let phone = try world.phone()
        let response = try Curl.applePush(world.server, token: phone.voip)
        #expect(response.status == 200)
    }

    @Test("apns-expiration at Int64.max to an offline phone is stored, then delivered, without a trap")
    func expirationAtTheEdge() throws {
        let world = try WorldServer()
        let phone = try world.phone(online: false)
        let response = try Curl.applePush(
            world.server, token: phone.voip, headers: ["apns-expiration": "9223372036854775807"])
        #expect(response.status == 200)
        _ = try world.control("POST", "/phones/\(phone.id)/state", ["online": true])
        let fate = try world.outcome(apnsId: try #require(response.headers["apns-id"]))
        #expect(fate["outcome"] as? String == "rang")
    }
}
