import Foundation
import Scenario

/// One self-contained HTML page: per scenario its verdict, what it teaches, and a sequence diagram
/// (provider ↔ APNs ↔ phone), each message with its status or reason and world time, failures marked.
/// A renderer only: it reads results, decides nothing (STYLE.md).
public enum HTMLReport {
    public static func render(_ results: [ScenarioResult]) -> String {
        let failed = results.filter { !$0.passed }.count
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <title>Ringside report</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
            h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
            .passed h2::before { content: "✔ "; color: #1a7f37; } .failed h2::before { content: "✘ "; color: #cf222e; }
            .teaches { color: #555; white-space: pre-wrap; }
            table.ladder { border-collapse: collapse; width: 100%; margin-top: .5em; }
            .ladder th { text-align: center; border-bottom: 2px solid #888; padding: .3em; }
            .ladder td { padding: .15em .4em; vertical-align: top; border-left: 1px dashed #bbb; }
            .ladder td.time { color: #888; font-variant-numeric: tabular-nums; border-left: none; white-space: nowrap; }
            .arrow { font-family: ui-monospace, monospace; white-space: nowrap; }
            tr.failed-step td.message { color: #cf222e; font-weight: bold; }
            </style></head><body>
            <h1>Ringside: \(results.count - failed) passed, \(failed) failed</h1>

            """
        for (index, result) in results.enumerated() {
            html += "<section class=\"scenario \(result.passed ? "passed" : "failed")\" id=\"scenario-\(index)\">\n"
            html += "<h2>\(escape(result.name))</h2>\n<p><code>\(escape(result.path))</code>"
            html += String(format: " — %.2f s</p>\n", result.seconds)
            if let teaches = result.teaches { html += "<p class=\"teaches\">\(escape(teaches))</p>\n" }
            if let error = result.error { html += "<p class=\"failed-step\">could not run: \(escape(error))</p>\n" }
            for diagnostic in result.diagnostics {
                html +=
                    "<pre class=\"failed-step\">\(escape(diagnostic.title)) at line \(diagnostic.range.start.line): \(escape(diagnostic.detail))</pre>\n"
            }
            html += ladder(result)
            html += "</section>\n"
        }
        html += """
            <script>
            // The title says what a reader sees: how many steps failed (checked by a headless browser test).
            document.title = "Ringside: " + document.querySelectorAll("tr.failed-step").length + " failed steps";
            </script>
            </body></html>

            """
        return html
    }

    static func ladder(_ result: ScenarioResult) -> String {
        guard !result.ladder.isEmpty else { return "" }
        let start = result.ladder.first?.at ?? 0
        var rows =
            "<table class=\"ladder\"><tr><th></th><th>provider</th><th>APNs</th><th>phone</th><th>message</th></tr>\n"
        for event in result.ladder {
            let columns: [ScenarioResult.LadderEvent.Party] = [.provider, .apns, .phone]
            let from = columns.firstIndex(of: event.from) ?? 0
            let to = columns.firstIndex(of: event.to) ?? 0
            var cells = ["", "", ""]
            if from == to {
                cells[from] = "●"
            } else if from < to {
                for column in from..<to { cells[column] = column == to - 1 ? "────►" : "─────" }
            } else {
                for column in to..<from { cells[column] = column == to ? "◄────" : "─────" }
            }
            rows +=
                "<tr\(event.failed ? " class=\"failed-step\"" : "")><td class=\"time\">+\(String(format: "%.3f", event.at - start)) s</td>"
            rows += cells.map { "<td class=\"arrow\">\($0)</td>" }.joined()
            rows += "<td class=\"message\">\(escape(event.label))</td></tr>\n"
        }
        return rows + "</table>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
