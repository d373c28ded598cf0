import Foundation
import Scenario

/// A load's plots in the report (issue 48): calls placed and rung a second, ring latency
/// percentiles, outcomes and APNs's answers stacked by second, connections opened, with the faults
/// armed before the load marked. Inline SVG, drawn from `LoadSeries`: no script, no font, nothing
/// fetched.
enum LoadPlots {
    static let width = 640.0
    static let height = 150.0
    static let palette = ["#2e7d32", "#c62828", "#1565c0", "#ef6c00", "#6a1b9a", "#00838f", "#5d4037", "#9e9d24"]

    struct Line {
        var name: String
        var values: [Double]
    }

    static func render(_ series: LoadSeries) -> String {
        let seconds = series.seconds
        guard !seconds.isEmpty else { return "" }
        var html = "<div class=\"load\"><h3>The load, second by second</h3>\n"
        html += "<p class=\"load-summary\">\(HTMLReport.escape(series.summary))</p>\n"
        html += chart(
            "calls a second", seconds.count, series.faults,
            lines: [
                Line(name: "placed", values: seconds.map { Double($0.placed) }),
                Line(name: "rang", values: seconds.map { Double($0.rang) }),
            ])
        html += chart(
            "ring latency (ms)", seconds.count, series.faults,
            lines: [
                Line(name: "p50", values: seconds.map { ($0.latency(50) ?? 0) * 1000 }),
                Line(name: "p99", values: seconds.map { ($0.latency(99) ?? 0) * 1000 }),
            ])
        let outcomes = Set(seconds.flatMap { $0.missed.keys }).sorted()
        html += chart(
            "outcomes a second", seconds.count, series.faults,
            stacked: [Line(name: "rang", values: seconds.map { Double($0.rang) })]
                + outcomes.map { kind in Line(name: kind, values: seconds.map { Double($0.missed[kind] ?? 0) }) })
        let statuses = Set(seconds.flatMap { $0.answers.keys }).sorted()
        html += chart(
            "APNs answers a second", seconds.count, series.faults,
            stacked: statuses.map { status in
                Line(name: String(status), values: seconds.map { Double($0.answers[status] ?? 0) })
            })
        html += chart(
            "connections opened", seconds.count, series.faults,
            lines: [Line(name: "connections", values: seconds.map { Double($0.connections) })])
        return html + "</div>\n"
    }

    /// One plot: `lines` drawn as polylines, `stacked` as bars stacked by second; faults as dashed
    /// verticals. The legend names each series in its colour.
    static func chart(
        _ title: String, _ count: Int, _ faults: [(second: Int, action: String)], lines: [Line] = [],
        stacked: [Line] = []
    ) -> String {
        let totals = (0..<count).map { second in stacked.reduce(0) { $0 + $1.values[second] } }
        let top = max(1, (lines.flatMap(\.values) + totals).max() ?? 1)
        let step = width / Double(max(count, 1))
        func y(_ value: Double) -> Double { height - value / top * (height - 10) }
        var svg =
            "<svg class=\"plot\" role=\"img\" aria-label=\"\(HTMLReport.escape(title))\" width=\"\(Int(width))\" height=\"\(Int(height) + 20)\" viewBox=\"0 0 \(Int(width)) \(Int(height) + 20)\" xmlns=\"http://www.w3.org/2000/svg\">"
        svg += "<title>\(HTMLReport.escape(title))</title>"
        svg +=
            "<line x1=\"0\" y1=\"\(Int(height))\" x2=\"\(Int(width))\" y2=\"\(Int(height))\" stroke=\"#999\"/>"
        var base = [Double](repeating: 0, count: count)
        for (index, bar) in stacked.enumerated() {
            let colour = palette[index % palette.count]
            for second in 0..<count where bar.values[second] > 0 {
                let low = y(base[second])
                let high = y(base[second] + bar.values[second])
                svg += String(
                    format: "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%@\"/>",
                    Double(second) * step, high, max(step - 1, 1), low - high, colour)
                base[second] += bar.values[second]
            }
        }
        for (index, line) in lines.enumerated() {
            let colour = palette[index % palette.count]
            let points = line.values.enumerated().map {
                String(format: "%.1f,%.1f", (Double($0.offset) + 0.5) * step, y($0.element))
            }.joined(separator: " ")
            svg +=
                "<polyline class=\"line\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(points)\"/>"
            // Each second a dot too: a load of one second is one point, which a polyline does not draw.
            for (second, value) in line.values.enumerated() {
                svg += String(
                    format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%@\"/>", (Double(second) + 0.5) * step,
                    y(value), colour)
            }
        }
        for fault in faults {
            let x = (Double(fault.second) + 0.05) * step
            svg += String(
                format:
                    "<line class=\"fault\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" stroke-dasharray=\"4 3\"/>",
                x, x, Int(height))
            svg += "<text x=\"\(Int(x) + 3)\" y=\"12\" font-size=\"10\">\(HTMLReport.escape(fault.action))</text>"
        }
        svg += "<text x=\"0\" y=\"\(Int(height) + 16)\" font-size=\"11\">\(HTMLReport.escape(title)), max \(Int(top)); "
        svg +=
            (stacked + lines).enumerated().map { index, series in
                "<tspan fill=\"\(palette[index % palette.count])\">■ \(HTMLReport.escape(series.name))</tspan>"
            }.joined(separator: " ")
        svg += " — \(count) s</text></svg>\n"
        return svg
    }
}
