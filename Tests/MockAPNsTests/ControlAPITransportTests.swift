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
}
