import Foundation
import TestSupport
import Testing

/// `ringside serve`'s console (issue 49), as a user meets it: the link it prints, the page in a real
/// browser (Debian's Chromium through Selenium and chromedriver) while aioapns pushes, and the
/// rules around it — the token, the page's security headers, the event stream only over HTTP/1.1.
@Suite(.serialized) struct ConsoleTests {
    typealias Serve = ServeCommandTests.Serve

    /// A JWT for the test key (`ringside token`).
    static func jwt() throws -> String {
        try run(Paths.ringside, ["token", "--certs", Paths.certs]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// A contract value as `serve` prints it: in single quotes when the shell would read it otherwise.
    static func value(_ serve: Serve, _ key: String) throws -> String {
        var value = try #require(serve.contract[key], "\(key) in \(serve.contract)")
        if value.hasPrefix("'"), value.hasSuffix("'") { value = String(value.dropFirst().dropLast()) }
        return value
    }

    static func browse(_ serve: Serve, screenshot: String, blockEvents: Bool) throws -> CommandResult {
        try run(
            "/usr/bin/env",
            [
                "python3", Paths.clients + "/console_browser.py", try value(serve, "RINGSIDE_CONSOLE_URL"),
                try value(serve, "RINGSIDE_CONTROL_URL"), "c0nsole", try value(serve, "APNS_PORT"), Paths.certs,
                screenshot,
            ] + (blockEvents ? ["--block-events"] : []), environment: ["RINGSIDE": Paths.ringside])
    }

    /// The page shows each push aioapns sends while it is open — by its apns-id, each header with
    /// what it means, the phone's outcome — says why a priority-5 push missed, arms a fault that
    /// changes the next answer, shows markup from a push as text, and is photographed. The same
    /// script with the page's live updates switched off (the browser blocks its event stream)
    /// fails: the page showed what it was sent, not what it was loaded with.
    @Test("The console in a browser shows pushes live with their outcomes; without its event stream it does not")
    func liveInBrowser() throws {
        let serve = try Serve(["--control-token", "c0nsole"])
        defer { _ = serve.interrupt() }
        #expect(try Self.value(serve, "RINGSIDE_CONSOLE_URL").hasSuffix("/console?token=c0nsole"))
        let shot = NSTemporaryDirectory() + "ringside-console-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: shot) }
        let live = try Self.browse(serve, screenshot: shot, blockEvents: false)
        #expect(live.status == 0, "\(live.stdout.suffix(800)) \(live.stderr.suffix(800))")
        let seen = try #require(
            try JSONSerialization.jsonObject(with: Data((live.stdout.split(separator: "\n").last ?? "").utf8))
                as? [String: Any], "\(live.stdout.suffix(400))")
        #expect(seen["firstOutcome"] as? String == "rang")
        #expect((seen["lowStory"] as? String)?.contains("apns-priority 5") == true, "\(seen["lowStory"] ?? "")")
        #expect((seen["lowPriorityNote"] as? String)?.contains("a call must ring now: priority 10") == true)
        #expect((seen["faulted"] as? [String: Any])?["status"] as? String == "503")
        #expect(seen["tokenLeftInAddress"] as? Bool == false)
        // The test push sent from the page: its exchange, its curl command, its outcome.
        #expect(seen["sendOutcome"] as? String == "rang")
        #expect((seen["sendLines"] as? String)?.contains("apns-priority: 10") == true)
        #expect((seen["sendCurl"] as? String)?.hasPrefix("curl -v --http2") == true)
        // A flood: a sample listed, the rest counted, and the page says so.
        #expect((seen["floodNotice"] as? String)?.contains("counted but not listed") == true)
        #expect((seen["listed"] as? Int ?? 1000) <= 200)
        let size = (try? FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0
        #expect(size > 10_000, "a screenshot of the console: \(size) bytes")
        let blocked = try Self.browse(serve, screenshot: shot + ".blocked.png", blockEvents: true)
        #expect(blocked.status != 0, "the page passed without its live updates: \(blocked.stdout.suffix(400))")
        #expect(blocked.stdout.contains("the page shows the push"), "\(blocked.stdout.suffix(400))")
    }

    /// With a control token the page needs the link that carries it, and its event stream the
    /// header; the page may not be framed, runs only its own script, sends no referrer; the event
    /// stream is refused over HTTP/2 with a reason, never left hanging.
    @Test("The console's page and stream need the token; the page has its security headers")
    func rules() throws {
        let serve = try Serve(["--control-token", "c0nsole"])
        defer { _ = serve.interrupt() }
        let control = try Self.value(serve, "RINGSIDE_CONTROL_URL")
        func status(_ arguments: [String]) throws -> String {
            try run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "3"] + arguments)
                .stdout
        }
        #expect(try status([control + "/console"]) == "401")
        #expect(try status([control + "/console?token=wrong"]) == "401")
        #expect(try status([control + "/console/events"]) == "401")
        let page = try run("/usr/bin/curl", ["-s", "-D", "-", try Self.value(serve, "RINGSIDE_CONSOLE_URL")])
        let head = page.stdout.lowercased()
        #expect(head.hasPrefix("http/1.1 200"))
        #expect(head.contains("frame-ancestors 'none'") && head.contains("x-frame-options: deny"))
        #expect(head.contains("default-src 'none'") && head.contains("script-src 'nonce-"))
        #expect(head.contains("referrer-policy: no-referrer"))
        // One script and one style, each with the response's nonce; no outside source.
        let nonce = try #require(head.firstMatch(of: /script-src 'nonce-([0-9a-f]+)'/)?.1)
        #expect(page.stdout.contains("<script nonce=\"\(nonce)\">") && !page.stdout.contains("src=\"http"))
        // HTTP/2 cannot carry the stream here: a 400 that says why.
        let h2 = try run(
            "/usr/bin/curl",
            [
                "-s", "--max-time", "3", "--http2-prior-knowledge", "-H", "authorization: Bearer c0nsole",
                control + "/console/events",
            ])
        #expect(h2.stdout.contains("HTTP/1.1"), "\(h2.stdout)")
        // Over HTTP/1.1 it streams: the first event within a second, and it stays open.
        let stream = try run(
            "/usr/bin/curl",
            ["-s", "-N", "--max-time", "1", "-H", "authorization: Bearer c0nsole", control + "/console/events"])
        #expect(stream.stdout.contains("event: metrics"), "\(stream.stdout)")
        // A stream that is its connection's first request outlives the 3 s given to strangers
        // (curl ends it at 4 s: exit 28, not a close by the server).
        let long = try run(
            "/usr/bin/curl",
            ["-s", "-N", "--max-time", "4", "-H", "authorization: Bearer c0nsole", control + "/console/events"])
        #expect(long.status == 28, "the stream ended early: \(long.status)")
        // Events are numbered; a page reconnecting after the last it has gets nothing twice.
        _ = try run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "--http2", "--cacert", Paths.certs + "/ca.pem", "-H",
                "authorization: bearer \(try Self.jwt())",
                "-H", "apns-topic: com.ringside.testapp.voip", "-H", "apns-push-type: voip", "-d", "{}",
                "https://127.0.0.1:\(try Self.value(serve, "APNS_PORT"))/3/device/"
                    + String(repeating: "ab", count: 32),
            ])
        let first = try run(
            "/usr/bin/curl",
            ["-s", "-N", "--max-time", "1", "-H", "authorization: Bearer c0nsole", control + "/console/events"])
        let last = try #require(first.stdout.matches(of: /id: (\d+)/).last?.1, "\(first.stdout)")
        let again = try run(
            "/usr/bin/curl",
            [
                "-s", "-N", "--max-time", "1", "-H", "authorization: Bearer c0nsole",
                control + "/console/events?after=\(last)",
            ])
        #expect(first.stdout.contains("event: push") && !again.stdout.contains("event: push"), "\(again.stdout)")
        // The page's test push is sent as given, but never into another header or another path.
        func send(_ body: String, token: Bool = true) throws -> String {
            try run(
                "/usr/bin/curl",
                ["-s", "-w", " %{http_code}", "-X", "POST", "-d", body]
                    + (token ? ["-H", "authorization: Bearer c0nsole"] : []) + [control + "/console/send"]
            ).stdout
        }
        #expect(try send(#"{"token": "abab"}"#, token: false).hasSuffix(" 401"))
        #expect(try send(#"{"token": "../../health"}"#).hasSuffix(" 400"))
        #expect(try send(#"{"token": "abab", "topic": "x\r\nx-injected: 1"}"#).hasSuffix(" 400"))
        #expect(try send(#"{"token": "abab", "colour": "red"}"#).hasSuffix(" 400"))
        let wrong = try send(#"{"token": "abab", "priority": "5"}"#)
        #expect(
            wrong.hasSuffix(" 200") && wrong.contains("BadDeviceToken") || wrong.contains("\"status\":"), "\(wrong)")
        // A page of another site cannot post to it, token or not.
        let posted = try status([
            "-X", "POST", "-H", "authorization: Bearer c0nsole", "-H", "origin: http://evil.example", "-d",
            #"{"reason": "ServiceUnavailable"}"#, control + "/faults",
        ])
        #expect(posted == "403")
        #expect(
            try status(["-H", "authorization: Bearer c0nsole", "-H", "origin: \(control)", control + "/health"])
                == "200")
    }

    /// Without a token (loopback), a name that resolves here is refused — a page elsewhere could
    /// make its own name resolve to 127.0.0.1 and read the console — and the addresses are served.
    @Test("Without a token the console answers only to loopback addresses, not to names")
    func rebinding() throws {
        let serve = try Serve([])
        defer { _ = serve.interrupt() }
        let control = try Self.value(serve, "RINGSIDE_CONTROL_URL")
        let port = try #require(control.split(separator: ":").last)
        // A browser says so (`Sec-Fetch-*`, sent by Chromium and Firefox with every request).
        func status(_ host: String, _ path: String, browser: Bool = true) throws -> String {
            try run(
                "/usr/bin/curl",
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "host: \(host)"]
                    + (browser ? ["-H", "sec-fetch-mode: navigate"] : []) + [control + path]
            ).stdout
        }
        #expect(try status("evil.example:\(port)", "/console") == "403")
        #expect(try status("evil.example:\(port)", "/phones") == "403")
        #expect(try status("127.0.0.1:\(port)", "/console") == "200")
        #expect(try status("localhost:\(port)", "/health") == "200")
        #expect(try status("[::1]:\(port)", "/health") == "200")
        // A test harness's client names the host as it likes.
        #expect(try status("mock.internal:\(port)", "/health", browser: false) == "200")
    }
}
