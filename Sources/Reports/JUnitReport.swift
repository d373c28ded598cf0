import APNs
import Foundation
import ScenarioLanguage

/// A JUnit XML report for CI systems: one testsuite, one testcase per scenario.
public enum JUnitReport {
    /// A JUnit XML report: one testsuite, one testcase per scenario.
    /// `skipped`: why a scenario was not run against the provider under test (a demonstration, or
    /// not applicable), written as `<skipped message="…"/>`.
    public static func render(
        _ cases: [(name: String, path: String, seconds: Double, failure: String?, skipped: String?)]
    ) -> String {
        // A single outside value is made visible; the failure text already is (ConsoleReport).
        let field = { (text: String) in OutsideText.markup(OutsideText.visible(text)) }
        let escape = OutsideText.markup
        let failures = cases.filter { $0.failure != nil }.count
        let skipped = cases.filter { $0.skipped != nil }.count
        let total = cases.reduce(0) { $0 + $1.seconds }
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml +=
            #"<testsuite name="ringside" tests="\#(cases.count)" failures="\#(failures)" skipped="\#(skipped)" time="\#(String(format: "%.3f", total))">"#
            + "\n"
        for testCase in cases {
            xml +=
                #"  <testcase classname="\#(field(testCase.path))" name="\#(field(testCase.name))" time="\#(String(format: "%.3f", testCase.seconds))""#
            if let failure = testCase.failure {
                let first = failure.split(separator: "\n").prefix(2).joined(separator: " ")
                xml += ">\n    <failure message=\"\(escape(first))\">\(escape(failure))</failure>\n  </testcase>\n"
            } else if let why = testCase.skipped {
                xml += ">\n    <skipped message=\"\(field(why))\"/>\n  </testcase>\n"
            } else {
                xml += "/>\n"
            }
        }
        return xml + "</testsuite>\n"
    }
}
