import APNs
import Foundation
import Glibc
import MockAPNs
import TestSupport
import Testing
import World

/// The control API's cleartext port: HTTP/2 with prior knowledge or HTTP/1.1, whatever the network
/// does to the first bytes, bodies larger than a push's, and its connection cap. What the routes
/// answer is tested in memory (MockAPNsUnitTests' `ControlAPITests`).
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

    @Test("An HTTP/1.1 body over 1 MiB gets 413, and the control API keeps serving")
    func http1BodyTooLarge() throws {
        let world = try WorldServer()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ringside-big-\(getpid()).json")
        try Data(repeating: 0x20, count: ControlAPI.maximumBody + 1).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try run(
            "/usr/bin/curl",
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@" + file.path,
                world.controlURL + "/phones",
            ])
        #expect(result.stdout == "413")
        #expect((try world.control("GET", "/health") as? [String: Any])?["status"] as? String == "ok")
    }

    @Test("Two Content-Length headers, equal or not, get 400 (RFC 9112 §6.3), and the control API keeps serving")
    func twoContentLengths() throws {
        let world = try WorldServer()
        let port = try #require(URLComponents(string: world.controlURL)?.port)
        for lengths in ["0\\r\\nContent-Length: 2", "0\\r\\nContent-Length: 0"] {
            let raw = try run(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import socket; s = socket.create_connection(('127.0.0.1', \(port))); s.settimeout(5); s.sendall(b'GET /health HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: \(lengths)\\r\\n\\r\\n{}{}{}'); print(s.recv(100).split(b'\\r\\n')[0].decode())",
                ])
            #expect(raw.stdout.hasPrefix("HTTP/1.1 400"), "\(lengths): \(raw.stdout) \(raw.stderr)")
        }
        #expect((try world.control("GET", "/health") as? [String: Any])?["status"] as? String == "ok")
    }

    /// `idle` and `flood` answered 0 of 20 before strangers were shed for newcomers (issue 46,
    /// point 3): the cap held by strangers refused the token holder at accept.
    @Test(
        "With a control token, strangers cannot lock the token holder out: past the untrusted deadline, while an idle crowd holds the cap, and while two processes keep re-filling it (Tests/clients/control_lockout.py)",
        arguments: [("wait", "1/1"), ("idle", "20/20"), ("flood", "20/20")])
    func strangersCannotLockOut(mode: String, answered: String) throws {
        let result = try run(
            "/usr/bin/env", ["python3", Paths.clients + "/control_lockout.py", Paths.ringside, Paths.certs, mode])
        #expect(result.stdout.hasPrefix("answered=\(answered) "), "\(result.stdout) \(result.stderr)")
    }

    @Test(
        "Over the control port's cap a newcomer takes the place of the oldest stranger; when all have authenticated, it is closed at once"
    )
    func controlConnectionsCapped() throws {
        let world = try WorldServer()
        let port = world.assembly.controlServer!.port
        func connect() -> Int32 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            return fd
        }
        var held: [Int32] = []
        for _ in 0..<ControlAPI.maximumConnections { held.append(connect()) }
        let deadline = Date().addingTimeInterval(5)
        while world.assembly.controlServer!.openConnections < ControlAPI.maximumConnections, Date() < deadline {
            usleep(10_000)
        }
        // Over the cap, the newcomer takes the place of the oldest stranger, which is closed.
        let over = connect()
        var byte: UInt8 = 0
        #expect(recv(held[0], &byte, 1, 0) == 0, "the oldest stranger was shed")
        close(held.removeFirst())
        let health = Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        #expect(send(over, health, health.count, 0) == health.count)
        var answer = [UInt8](repeating: 0, count: 12)
        #expect(recv(over, &answer, 12, 0) == 12 && String(decoding: answer, as: UTF8.self) == "HTTP/1.1 200")
        // When every connection has authenticated, a newcomer is closed at once.
        for fd in held { _ = send(fd, health, health.count, 0) }
        for fd in held { _ = recv(fd, &answer, 12, 0) }
        let refused = connect()
        #expect(recv(refused, &byte, 1, 0) == 0, "all trusted: the newcomer is closed at once")
        close(refused)
        close(over)
        for fd in held { close(fd) }
        while world.assembly.controlServer!.openConnections > 0, Date() < deadline.addingTimeInterval(5) {
            usleep(10_000)
        }
        #expect((try world.control("GET", "/health") as? [String: Any])?["status"] as? String == "ok")
    }

}
