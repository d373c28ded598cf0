import APNs
import Foundation
import Scenario
import ScenarioLanguage

/// One self-contained HTML page (no network, no external file): a summary with pass/fail filters,
/// then per scenario what it teaches, its failures linked to their lines, and a sequence diagram
/// with lifelines for the provider, APNs, the phone and the app inside it — connections and their
/// credentials, SETTINGS, each request and answer (each opens its header-by-header explanation),
/// retries with their wait, GOAWAY, refusals, the push's story on the phone, world-clock jumps as
/// breaks, failed expectations where they were judged. A renderer only: it reads results.
public enum HTMLReport {
    typealias Party = Ladder.LadderEvent.Party

    /// `provider`: the provider under test's name, when the run judged one (`--provider-file`): the
    /// page then carries the console's conformance summary.
    public static func render(_ results: [ScenarioResult], provider: String? = nil) -> String {
        // A skipped scenario (a demonstration, a requirement not applicable) was not judged: it is
        // neither passed nor failed.
        let skipped = results.filter { $0.skipped != nil }.count
        let failed = results.filter { !$0.passed }.count
        let passed = results.count - failed - skipped
        let failedExpectations = results.reduce(0) { $0 + $1.expectations.filter { !$0.passed }.count }
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <title>Ringside report</title>
            <style>\(style)</style></head><body class="show-all">
            <header>
            <h1>Ringside: \(passed) passed, \(failed) failed\(skipped > 0 ? ", \(skipped) skipped" : "")</h1>
            <p class="filters">Show:
            <button data-show="all" class="on">all \(results.count)</button>
            <button data-show="failed">failed \(failed)</button>
            <button data-show="passed">passed \(passed)</button>\(skipped > 0 ? "\n<button data-show=\"skipped\">skipped \(skipped)</button>" : "")</p>

            """
        if let provider {
            html +=
                "<pre class=\"conformance\">\(escape(ConformanceSummary.render(results, provider: provider)))</pre>\n"
        }
        html += "<table class=\"summary\">\n"
        for (index, result) in results.enumerated() {
            let verdict = result.skipped != nil ? "skipped" : result.passed ? "passed" : "failed"
            let failures = result.expectations.filter { !$0.passed }.count
            html +=
                "<tr class=\"scenario-row \(verdict)\"><td class=\"verdict\">\(result.skipped != nil ? "–" : result.passed ? "✔" : "✘")</td>"
            html += "<td><a href=\"#scenario-\(index)\">\(escape(result.name))</a></td>"
            html += "<td class=\"path\">\(escape(result.path))</td><td>"
            html +=
                result.skipped.map { "skipped: \(escape($0.description))" }
                ?? (result.passed
                    ? ""
                    : failures > 0 ? "\(failures) failed" : result.error != nil ? "could not run" : "does not check")
            html += "</td></tr>\n"
        }
        // Failures whole; passes whole until they fill their budget, then summarised.
        var sections = ""
        var spentOnPasses = 0
        var summarised = 0
        for (index, result) in results.enumerated() {
            if !result.passed {
                sections += section(result, index: index)
            } else if spentOnPasses < passedDetailBudget {
                let whole = section(result, index: index)
                spentOnPasses += whole.utf8.count
                sections += whole
            } else {
                sections += section(result, index: index, summarised: true)
                summarised += 1
            }
        }
        html += "</table>\n"
        if summarised > 0 {
            html +=
                "<p class=\"left-out\">\(summarised) of \(results.count - failed) passing or skipped scenarios are summarised below (name, file, time): their diagrams, calls and source were left out to keep the page small, once the first ones filled the \(passedDetailBudget >> 20) MB kept for passes. Failures are always shown whole. Run a scenario on its own, or with <code>--transcript DIR</code>, for the rest.</p>\n"
        }
        html += "</header>\n" + sections
        html += """
            <script>
            // The title says what a reader sees (checked by a headless browser test).
            document.title = "Ringside: " + document.querySelectorAll("section.failed").length + " of " +
              document.querySelectorAll("section.scenario").length + " scenarios failed, " +
              document.querySelectorAll(".event.kind-expectation").length + " failed expectation(s)";
            for (const button of document.querySelectorAll(".filters button")) {
              button.addEventListener("click", () => {
                document.body.className = "show-" + button.dataset.show;
                for (const other of document.querySelectorAll(".filters button")) other.classList.toggle("on", other === button);
              });
            }
            </script>
            </body></html>

            """
        _ = failedExpectations
        return html
    }

    /// How many bytes of passing scenarios' sections a page holds whole (issue 46: 2,040 passing
    /// scenarios made a 30.6 MB page); past it a pass is summarised. Failures are never cut.
    public static let passedDetailBudget = 3 << 20

    static func section(_ result: ScenarioResult, index: Int, summarised: Bool = false) -> String {
        let id = "scenario-\(index)"
        let verdict = result.skipped != nil ? "skipped" : result.passed ? "passed" : "failed"
        var html = "<section class=\"scenario \(verdict)\" id=\"\(id)\">\n"
        html += "<h2>\(escape(result.name))</h2>\n<p class=\"path\"><code>\(escape(result.path))</code>"
        html += String(format: " — %.2f s</p>\n", result.seconds)
        if let teaches = result.teaches { html += "<p class=\"teaches\">\(escape(teaches))</p>\n" }
        if let error = result.error { html += "<p class=\"failure\">could not run: \(escape(error))</p>\n" }
        if let skipped = result.skipped {
            html += "<p class=\"skipped\">skipped: \(escape(skipped.description))</p>\n"
        }
        for diagnostic in result.diagnostics {
            html +=
                "<p class=\"failure\"><a href=\"#\(id)-L\(diagnostic.range.start.line)\">line \(diagnostic.range.start.line)</a>: \(escape(diagnostic.title)): \(escape(diagnostic.detail))</p>\n"
        }
        for expectation in result.expectations where !expectation.passed {
            let line = expectation.range.start.line
            html +=
                "<p class=\"failure\">✘ <a href=\"#\(id)-L\(line)\">line \(line)</a>: expected \(escape(expectation.expected)); happened: \(escape(expectation.happened))</p>\n"
        }
        // What the provider printed, once: each failure kept the same last lines.
        if let printed = result.expectations.last(where: { !$0.passed && !$0.printed.isEmpty })?.printed {
            html += "<pre class=\"printed\">the provider printed:\n\(escape(printed.joined(separator: "\n")))</pre>\n"
        }
        if summarised {
            return html
                + "<p class=\"left-out\">diagram, calls and source left out (see the note at the top)</p>\n</section>\n"
        }
        if let load = result.load { html += LoadPlots.render(load) }
        html += diagram(result, id: id)
        html += calls(result, id: id)
        html += source(result, id: id)
        return html + "</section>\n"
    }

    /// The most messages a scenario's diagram shows (issue 27: 20,000 pushes made a 45 MB page no
    /// browser rendered); the rest are counted, and the transcript (`run --transcript DIR`) has all.
    public static let shownEvents = 400

    /// The sequence diagram: a grid of four lifelines, one row per message.
    static func diagram(_ result: ScenarioResult, id: String) -> String {
        let ladder = Ladder.events(of: result)
        guard !ladder.isEmpty else { return "" }
        let lanes = Party.allCases
        var html = "<div class=\"diagram\">\n<div class=\"lanes-head\"><div></div>"
        html += lanes.map { "<div class=\"lane-name\">\(name($0))</div>" }.joined() + "</div>\n"
        let start = ladder.first?.at ?? 0
        // A page a browser opens: at most `shownEvents` messages a scenario, failures first.
        var shown = Set(ladder.indices)
        if ladder.count > shownEvents {
            let failed = ladder.indices.filter { ladder[$0].failed }.prefix(shownEvents)
            let others = ladder.indices.filter { !ladder[$0].failed }.prefix(shownEvents - failed.count)
            shown = Set(failed).union(others)
        }
        let leftOut = ladder.count - shown.count
        for (index, event) in ladder.enumerated() where shown.contains(index) {
            var classes = "event kind-\(event.kind.rawValue)"
            if event.failed { classes += " failed-step" }
            if event.kind == .step {
                let line = event.line ?? 0
                html +=
                    "<div class=\"\(classes)\"><div class=\"time\">+\(String(format: "%.3f", event.at - start)) s</div><div class=\"step-band\"><a href=\"#\(id)-L\(line)\">line \(line)</a> \(escapeSource(event.label))</div></div>\n"
                continue
            }
            if event.kind == .clockJump {
                html +=
                    "<div class=\"\(classes)\"><div class=\"break\">⋯ \(escape(event.label)) <span class=\"muted\">(advance, line \(event.line ?? 0))</span> ⋯</div></div>\n"
                continue
            }
            let from = lanes.firstIndex(of: event.from) ?? 0
            let to = lanes.firstIndex(of: event.to) ?? 0
            let low = min(from, to)
            let high = max(from, to)
            let span = high - low + 1
            // Arrows run from the middle of one lane to the middle of the other.
            let inset = 50.0 / Double(span)
            html += "<div class=\"\(classes)\"><div class=\"time\">+\(String(format: "%.3f", event.at - start)) s</div>"
            html += lanes.indices.map { "<div class=\"lifeline\" style=\"grid-column:\($0 + 2)\"></div>" }.joined()
            html += "<div class=\"message\" style=\"grid-column:\(low + 2) / \(high + 3)\">"
            if from == to {
                html += "<div class=\"note\">"
            } else {
                let direction = from < to ? "right" : "left"
                html += "<div class=\"arrow \(direction)\" style=\"margin-left:\(inset)%;margin-right:\(inset)%\">"
            }
            var label = escape(event.label)
            if let connection = event.connection, event.kind != .connection {
                label += " <span class=\"muted\">#\(connection)</span>"
            }
            if let line = event.line, event.kind == .expectation { label = "<a href=\"#\(id)-L\(line)\">\(label)</a>" }
            // The field APNs refused is marked on the arrow and in the request's explanation.
            if let field = event.refusedField { label += " <span class=\"refused-field\">✘ \(escape(field))</span>" }
            if event.details.isEmpty {
                html += "<span class=\"label\">\(label)</span>"
            } else {
                html += "<details><summary class=\"label\">\(label)</summary><ul>"
                html +=
                    event.details.map { detail in
                        // `body (N bytes)` is the payload; a header's line reads `name: value`.
                        let marked =
                            event.refusedField.map {
                                $0 == "body" ? detail.hasPrefix("body (") : detail.hasPrefix($0 + ":")
                            } ?? false
                        return marked
                            ? "<li class=\"refused-field\">✘ \(escape(detail))</li>" : "<li>\(escape(detail))</li>"
                    }.joined() + "</ul></details>"
            }
            html += "</div></div></div>\n"
        }
        if leftOut > 0 {
            html +=
                "<p class=\"left-out\">\(leftOut) more message\(leftOut == 1 ? "" : "s") left out of this diagram (it shows \(shownEvents) at most, failures always); every event is in the scenario's transcript: <code>ringside run --transcript DIR</code></p>\n"
        }
        return html + "</div>\n"
    }

    /// Each push's chain on the phone, under the diagram: how far it got (PushKit, the app,
    /// CallKit) and how it ended.
    static func calls(_ result: ScenarioResult, id: String) -> String {
        let calls = Ladder.calls(of: result)
        guard !calls.isEmpty else { return "" }
        var html = "<div class=\"calls\"><h3>On the phone</h3><ol>\n"
        for call in calls.prefix(shownEvents) {
            let ended = call.outcome.hasPrefix("rang") && !call.outcome.hasPrefix("rang-late") ? "rang" : "not-rang"
            html += "<li class=\"call \(ended)\"><b>\(escape(call.phone))</b>"
            if let callUUID = call.callUUID { html += " call <code>\(escape(callUUID))</code>" }
            if let line = call.line { html += " (<a href=\"#\(id)-L\(line)\">line \(line)</a>)" }
            html += ": <span class=\"outcome\">\(escape(call.outcome))</span><ol class=\"chain\">"
            html += call.steps.map { step in
                "<li>\(escape(step.text))" + (step.rule.map { " <span class=\"muted\">\(escape($0))</span>" } ?? "")
                    + "</li>"
            }.joined()
            html += "</ol></li>\n"
        }
        if calls.count > shownEvents {
            html += "<li class=\"left-out\">\(calls.count - shownEvents) more pushes left out</li>\n"
        }
        return html + "</ol></div>\n"
    }

    /// The scenario file with numbered lines, each an anchor failures link to.
    static func source(_ result: ScenarioResult, id: String) -> String {
        guard !result.source.isEmpty else { return "" }
        let failing = Set(result.expectations.filter { !$0.passed }.map(\.range.start.line))
        var html = "<details class=\"source\"\(failing.isEmpty ? "" : " open")><summary>the scenario</summary><pre>"
        for (offset, line) in result.source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            html +=
                "<span id=\"\(id)-L\(number)\" class=\"line\(failing.contains(number) ? " failing" : "")\"><span class=\"number\">\(number)</span>\(escapeSource(String(line)))</span>\n"
        }
        return html + "</pre></details>\n"
    }

    static func name(_ party: Party) -> String {
        switch party {
        case .provider: return "provider"
        case .apns: return "APNs (Ringside)"
        case .phone: return "phone (PushKit, CallKit)"
        case .app: return "the app"
        }
    }

    static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
        h1 { font-size: 1.4em; margin: 0 0 .3em; } h2 { font-size: 1.15em; margin: 0 0 .2em; }
        button { font: inherit; border: 1px solid #aaa; background: #f6f8fa; border-radius: 4px; padding: .1em .6em; }
        button.on { background: #222; color: #fff; }
        table.summary { border-collapse: collapse; margin: .5em 0 1.5em; }
        table.summary td { padding: .1em .6em; } .summary .failed .verdict { color: #cf222e; }
        .summary .passed .verdict { color: #1a7f37; } .path { color: #666; font-size: .9em; }
        body.show-failed .passed, body.show-passed .failed { display: none; }
        body.show-passed .skipped, body.show-skipped .passed, body.show-skipped .failed { display: none; }
        section.scenario { border-top: 1px solid #ddd; padding-top: 1.2em; margin-top: 1.2em; }
        .passed h2::before { content: "✔ "; color: #1a7f37; } .failed h2::before { content: "✘ "; color: #cf222e; }
        .skipped h2::before { content: "– "; color: #888; } body.show-failed .skipped { display: none; }
        .teaches { color: #444; white-space: pre-wrap; max-width: 60em; }
        .failure { color: #cf222e; font-weight: 600; }
        .diagram { margin: .8em 0; }
        .lanes-head, .event { display: grid; grid-template-columns: 6.5em repeat(4, 1fr); }
        .lane-name { text-align: center; font-weight: 600; border-bottom: 2px solid #888; padding: .2em; }
        .event { position: relative; min-height: 1.9em; }
        .event > * { grid-row: 1; }
        .time { color: #888; font-variant-numeric: tabular-nums; font-size: .85em; padding-top: .3em; }
        .lifeline { border-left: 1px dashed #bbb; margin-left: 50%; }
        .message { z-index: 1; align-self: center; }
        .arrow { position: relative; border-bottom: 2px solid #57606a; padding: 0 .3em .1em; text-align: center; }
        .arrow.right::after, .arrow.left::before { content: ""; position: absolute; bottom: -6px; border: 5px solid transparent; }
        .arrow.right::after { right: -2px; border-left: 8px solid #57606a; }
        .arrow.left::before { left: -2px; border-right: 8px solid #57606a; }
        .note { margin: .1em 8%; padding: .1em .5em; border: 1px solid #d0d7de; border-radius: 4px; background: #f6f8fa; font-size: .92em; }
        .kind-request .arrow { border-color: #0969da; } .kind-request .arrow.right::after { border-left-color: #0969da; }
        .kind-connection .arrow, .kind-settings .arrow { border-bottom-style: dotted; color: #555; }
        .kind-goaway .arrow, .kind-refused .arrow { border-color: #bf3989; }
        .kind-goaway .arrow.left::before, .kind-refused .arrow.left::before { border-right-color: #bf3989; }
        .failed-step .label { color: #cf222e; }
        .kind-expectation .note, .kind-expectation .arrow { background: #ffebe9; border-color: #cf222e; font-weight: 600; }
        .kind-clock-jump .break { grid-column: 1 / 6; text-align: center; color: #555; margin: .4em 0;
          border-top: 3px double #bbb; border-bottom: 3px double #bbb; background: #fafafa; }
        details > summary { cursor: pointer; list-style: none; } details > summary::-webkit-details-marker { display: none; }
        details[open] ul { text-align: left; background: #fff; border: 1px solid #d0d7de; padding: .4em 1.6em; font-size: .9em; }
        .muted { color: #888; font-weight: normal; }
        .step-band { grid-column: 2 / 6; margin: .3em 0; padding: .1em .5em; border-left: 4px solid #8250df;
          background: #fbefff; font-family: ui-monospace, monospace; font-size: .9em; }
        .refused-field { color: #cf222e; font-weight: 600; }
        .calls h3 { font-size: 1em; margin: .6em 0 .2em; } .calls .chain { margin: .1em 0 .4em; font-size: .92em; }
        .calls .call.rang .outcome { color: #1a7f37; } .calls .call.not-rang .outcome { color: #cf222e; }
        .source pre { background: #f6f8fa; padding: .5em; overflow-x: auto; }
        .source .number { display: inline-block; width: 3em; color: #888; } .source .failing { background: #ffebe9; }
        """

    /// Outside text for the page: each line made `visible` (no control character, no bidirectional
    /// override) and marked up; the line breaks themselves are kept (OutsideText, issue 27).
    static func escape(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map {
            OutsideText.markup(OutsideText.visible(String($0)))
        }.joined(separator: "\n")
    }

    /// The scenario's own text (its lines, its steps), shown as written: backslashes are not doubled.
    static func escapeSource(_ text: String) -> String {
        OutsideText.markup(OutsideText.visibleAsWritten(text))
    }
}
