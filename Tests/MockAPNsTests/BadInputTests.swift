import APNs
import Foundation
import HTTP2Server
import MockAPNs
import TestSupport
import Testing

/// Bad input gets a clear answer or a closed connection, and the server keeps serving with memory
/// back where it was (issue: "Must show").
@Suite(.serialized) struct BadInputTests {
    static let eightMegabytes: String = {
        let path = NSTemporaryDirectory() + "ringside-8mb-body.json"
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(
                atPath: path, contents: Data(repeating: UInt8(ascii: "x"), count: 8 << 20))
        }
        return path
    }()

    /// One of each kind of bad client, against a server on `port`.
    static func badClients(port: UInt16) throws -> [String: [String: Any]] {
        var seen: [String: [String: Any]] = [:]
        seen["plain bytes instead of TLS"] = try Probe.run(["port": Int(port), "mode": "plain-bytes"])
        seen["TLS then garbage instead of the preface"] = try Probe.run([
            "port": Int(port), "ca": Paths.ca, "mode": "garbage-after-tls",
        ])
        seen["vanishes mid-stream"] = try Probe.run([
            "port": Int(port), "ca": Paths.ca, "mode": "vanish", "requests": [Probe.voip()],
        ])
        let manyHeaders = (0..<3000).map { ["x-header-\($0)", "value-\($0)"] }
        seen["thousands of headers"] = try Probe.run([
            "port": Int(port), "ca": Paths.ca, "requests": [Probe.voip(extra: manyHeaders)],
        ])
        return seen
    }

    @Test("Each bad client leaves the server serving the next one, with no connection left open")
    func serverKeepsServing() throws {
        let server = try MockServer()
        let seen = try Self.badClients(port: server.port)
        #expect(server.events.refusals.contains { $0.contains("did not speak TLS") }, "\(server.events.refusals)")
        let thousands = try #require(seen["thousands of headers"])
        #expect(Probe.reasons(thousands) != ["200"], "a header list over 8000 bytes is not accepted")
        #expect(try Curl.applePush(server).status == 200)
        #expect(server.waitUntilIdle() == 0)
    }

    @Test("A header list over MAX_HEADER_LIST_SIZE gets 431 when it fits in the frames nghttp2 accepts")
    func headerListTooLarge() throws {
        let server = try MockServer()
        let headers = (0..<200).map { ["x-header-\($0)", String(repeating: "v", count: 40)] }
        let output = try Probe.run(["port": Int(server.port), "ca": Paths.ca, "requests": [Probe.voip(extra: headers)]])
        #expect(Probe.reasons(output) == ["431"])
        // Its ids, as every answer has them (the sandbox's apns-unique-id too; an adversary saw it missing).
        let answer = (output["responses"] as? [[String: Any]])?.first?["headers"] as? [String: String] ?? [:]
        #expect(UUIDSyntax.isCanonical(answer["apns-id"] ?? ""), "\(answer)")
        #expect(UUIDSyntax.isCanonical(answer["apns-unique-id"] ?? ""), "\(answer)")
        #expect(try Curl.applePush(server).status == 200)
    }

    @Test("An 8 MB body gets 413 PayloadTooLarge and is not kept")
    func eightMegabyteBody() throws {
        let server = try MockServer()
        let response = try Curl.applePush(server, body: "@" + Self.eightMegabytes)
        #expect(response.status == 413)
        #expect(response.reason == "PayloadTooLarge")
        let record = try #require(server.events.pushes.last)
        #expect(record.request.bodyLength == 8 << 20)
        #expect(record.request.body.count <= 8192)
    }

    @Test("A connection that sends nothing does not block others and is closed when idle")
    func silentConnection() throws {
        let server = try MockServer(idleTimeout: 1)
        nonisolated(unsafe) var silent: [String: Any] = [:]
        let done = DispatchSemaphore(value: 0)
        let port = Int(server.port)
        Thread.detachNewThread {
            silent = (try? Probe.run(["port": port, "ca": Paths.ca, "mode": "silent", "wait": 3])) ?? [:]
            done.signal()
        }
        usleep(200_000)
        #expect(try Curl.applePush(server).status == 200)
        done.wait()
        #expect(silent["closed"] as? Bool == true)
        #expect(server.waitUntilIdle() == 0)
    }

    @Test("Resident memory of `ringside serve` is back where it was after ten rounds of bad clients")
    func memoryIsBounded() throws {
        let binary = Paths.ringside
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build first: swift build")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--quiet", "--idle-timeout", "2", "--certs", Paths.certs]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.interrupt()
            process.waitUntilExit()
        }
        var contract = ""
        while !contract.contains("RINGSIDE_CONTROL_URL") {
            let chunk = out.fileHandleForReading.readSomeRetryingInterrupts()
            if chunk.isEmpty { break }
            contract += String(decoding: chunk, as: UTF8.self)
        }
        let portLine = try #require(contract.split(separator: "\n").first { $0.hasPrefix("APNS_PORT=") })
        let port = try #require(UInt16(portLine.dropFirst("APNS_PORT=".count)))
        func round() throws {
            _ = try Self.badClients(port: port)
            _ = try Curl.send([
                "--http2", "--cacert", Paths.ca, "-H", "authorization: bearer \(Paths.jwt())", "-H",
                "apns-topic: \(Paths.topic)",
                "-H", "apns-push-type: voip", "--data-binary", "@" + Self.eightMegabytes,
                "https://127.0.0.1:\(port)/3/device/\(Paths.voipToken)",
            ])
        }
        try round()
        try round()
        let before = try residentKilobytes(process.processIdentifier)
        for _ in 0..<10 { try round() }
        let after = try residentKilobytes(process.processIdentifier)
        #expect(after - before < 4096, "resident memory grew from \(before) kB to \(after) kB")
        #expect(process.isRunning)
    }

    private func residentKilobytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
}
