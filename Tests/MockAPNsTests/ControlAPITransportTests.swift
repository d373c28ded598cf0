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
