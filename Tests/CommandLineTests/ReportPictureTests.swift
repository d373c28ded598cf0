import Foundation
import TestSupport
import Testing

/// The report people would rather look at (issue 29 point 7), read back from a real headless
/// browser's DOM: the scenario's steps on the timeline, stream ids and the provider's latency on
/// each request, the refused field marked on its arrow, the phone's chain under each call, and a
/// page that still renders for the whole library.
@Suite struct ReportPictureTests {
    static func dom(_ arguments: [String]) throws -> (status: Int32, dom: String, page: String) {
        let report = NSTemporaryDirectory() + "ringside-picture-\(UUID().uuidString).html"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let result = try run(Paths.ringside, ["run", "--certs", Paths.certs, "--report", report] + arguments)
        let page = try String(contentsOfFile: report, encoding: .utf8)
        let chromium = try run(
            "/usr/bin/chromium", ["--headless", "--disable-gpu", "--no-sandbox", "--dump-dom", "file://" + report])
        return (result.status, chromium.stdout, page)
    }

    @Test("A refused push: the steps on the timeline, the stream, the latency and the refused field on the arrow")
    func refusedPush() throws {
        let (status, dom, _) = try Self.dom([
            "--provider", "forgets-voip-suffix", Paths.scenario("01-a-call-rings.ring"),
        ])
        #expect(status == 1)
        #expect(dom.contains(##"<div class="step-band"><a href="#scenario-0-L15">line 15</a> register: alice</div>"##))
        #expect(
            dom.contains(
                ##"<div class="step-band"><a href="#scenario-0-L16">line 16</a> call: alice, from: bob</div>"##))
        let request = try #require(
            dom.components(separatedBy: #"<div class="event kind-request"#).dropFirst().first, "no request row")
        #expect(request.contains(" · stream 1 · "), "\(request.prefix(600))")
        #expect(request.contains(" ms after line 16"), "\(request.prefix(600))")
        // TopicDisallowed is about the topic: marked on the arrow and on the header's line.
        #expect(request.contains(#"<span class="refused-field">✘ apns-topic</span>"#), "\(request.prefix(600))")
        #expect(request.contains(#"<li class="refused-field">✘ apns-topic: com.ringside.testapp —"#))
        #expect(dom.contains("400 TopicDisallowed · stream 1"))
    }

    @Test("A call that rang: its chain on the phone, rule by rule, under the diagram")
    func chainUnderTheCall() throws {
        let (status, dom, _) = try Self.dom([Paths.scenario("06-backoff-on-503.ring")])
        #expect(status == 0)
        let calls = try #require(
            dom.components(separatedBy: #"<div class="calls"><h3>On the phone</h3>"#).dropFirst().first)
        #expect(calls.contains(#"<li class="call rang"><b>alice</b> call <code>"#), "\(calls.prefix(500))")
        for rule in ["accepted", "handed-to-app", "reported-to-callkit", "rang"] {
            #expect(calls.contains(#"<span class="muted">\#(rule)</span>"#), "\(rule)")
        }
        #expect(dom.contains(#"line 9</a> fault: ServiceUnavailable"#))
    }

    /// The adversary's findings: a wrong path drawn as sent, the scenario's backslashes as written,
    /// and the latency measured from the step that drove the request, not from a later `wait`.
    @Test("A wrong path is drawn as sent; the scenario's text keeps its backslashes; latency names the driving step")
    func asSentAndAsWritten() throws {
        let (_, badPath, _) = try Self.dom([Paths.root + "/scenarios/requests/41-bad-path.ring"])
        #expect(badPath.contains("POST /3/devices/"), "\(badPath.prefix(400))")
        let (_, large, _) = try Self.dom([Paths.root + "/scenarios/requests/40-payload-too-large.ring"])
        #expect(large.contains(#"tr '\0' x"#) && !large.contains(#"tr '\\0' x"#))
        // A provider that pushes 0.3 s after its call step returned, while the scenario waits.
        let folder = NSTemporaryDirectory() + "ringside-late-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let curl =
            #"(sleep 0.3; curl -s -o /dev/null --http2 --max-time 5 --cacert "{ca}" -H "authorization: bearer {jwt}" -H "apns-topic: {topic}" -H "apns-push-type: voip" -H "apns-expiration: 0" -d '{payload}' {url}/3/device/{token}) > /dev/null 2>&1 &"#
        try """
        scenario: late
        phones:
          - name: alice
          - name: carol
        provider:
          exec: \(curl)
        steps:
          - register: alice
          - call: alice
            from: bob
          - offline: carol
          - wait: 1s
          - expect apns: accepted
            status: 200
        """.write(toFile: folder + "/late.ring", atomically: true, encoding: .utf8)
        let (status, late, _) = try Self.dom([folder + "/late.ring"])
        #expect(status == 0)
        #expect(
            late.contains(" ms after line 9"), "\(late.components(separatedBy: "kind-request").dropFirst().first ?? "")"
        )
        #expect(!late.contains(" ms after line 11") && !late.contains(" ms after line 12"))
    }

    @Test("The whole library's report renders in the browser with every scenario's diagram")
    func wholeLibrary() throws {
        let scenarios = try FileManager.default.subpathsOfDirectory(atPath: Paths.root + "/scenarios")
            .filter { $0.hasSuffix(".ring") }
        let (status, dom, page) = try Self.dom(["--jobs", "2", Paths.root + "/scenarios"])
        #expect(status == 0)
        #expect(dom.contains("<title>Ringside: 0 of \(scenarios.count) scenarios failed"), "\(dom.prefix(300))")
        let sections = dom.components(separatedBy: #"<section class="scenario "#).dropFirst()
        #expect(sections.count == scenarios.count)
        for section in sections {
            #expect(section.contains(#"<div class="diagram">"#), "\(section.prefix(200))")
        }
        // Usable: a page of a few megabytes, not tens (`HTMLReport.shownEvents` bounds each diagram).
        #expect(page.utf8.count < 8 << 20, "\(page.utf8.count) bytes")
    }

    /// A load's plots (issue 48, point 4), read back from the browser's DOM, and a screenshot of
    /// the page (`RINGSIDE_SCREENSHOT` keeps it where asked; a temporary file otherwise).
    @Test("A load scenario's report plots it second by second, and the browser renders the plots")
    func loadPlots() throws {
        let (status, dom, page) = try Self.dom([Paths.root + "/scenarios/load/76-goaway-mid-burst.ring"])
        #expect(status == 0)
        #expect(page.components(separatedBy: "<svg class=\"plot\"").count - 1 == 5, "\(page.prefix(300))")
        #expect(dom.contains("The load, second by second"))
        #expect(dom.contains("<polyline class=\"line\""), "the rates are drawn")
        #expect(dom.contains("<rect class=\"bar\""), "the outcomes and answers are stacked")
        #expect(dom.contains("<line class=\"fault\""), "the GOAWAY armed before the load is marked")
        #expect(dom.contains("200 calls (200 to phones that could ring): 200 rang"), "\(dom.prefix(300))")
        let report = NSTemporaryDirectory() + "ringside-load-report-\(UUID().uuidString).html"
        defer { try? FileManager.default.removeItem(atPath: report) }
        _ = try run(
            Paths.ringside,
            [
                "run", "--certs", Paths.certs, "--report", report,
                Paths.root + "/scenarios/load/76-goaway-mid-burst.ring",
            ])
        let shot =
            ProcessInfo.processInfo.environment["RINGSIDE_SCREENSHOT"]
            ?? NSTemporaryDirectory() + "ringside-load-\(UUID().uuidString).png"
        _ = try run(
            "/usr/bin/chromium",
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--window-size=1100,1400", "--screenshot=\(shot)",
                "file://" + report,
            ])
        let size = (try? FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0
        #expect(size > 10_000, "a screenshot of the plots: \(shot), \(size) bytes")
        if ProcessInfo.processInfo.environment["RINGSIDE_SCREENSHOT"] == nil {
            try? FileManager.default.removeItem(atPath: shot)
        }
    }
}
