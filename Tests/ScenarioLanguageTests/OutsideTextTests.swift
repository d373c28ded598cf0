import APNs
import Foundation
import FoundationXML
import ScenarioLanguage
import Testing

/// Outside text is escaped once per output kind (OutsideText, issue 27): a table of hostile strings.
@Suite struct OutsideTextTests {
    static let hostile = [
        "::error file=/etc/passwd::owned", "line\r::error::after a lone CR", "two\nlines", "\u{1b}[31mred\u{1b}[0m",
        "\u{1b}]0;title\u{07}", "right-to-left \u{202e}txt.exe", "nul\u{0}byte", "del\u{7f} c1\u{85}\u{9b}",
        "sep\u{2028}arator", "nonchar\u{fffe}\u{ffff}", "back\\slash \\x1b", "50% %0A ,:", "tab\there",
        "<script>&'\"", "bom\u{feff}", "",
    ]

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || [0x2028, 0x2029, 0x202E, 0xFFFE, 0xFFFF].contains(scalar.value)
    }

    @Test("visible leaves no control character and reads back to the same text", arguments: hostile)
    func visible(text: String) {
        let shown = OutsideText.visible(text)
        #expect(!shown.unicodeScalars.contains(where: Self.isControl), "\(shown)")
        #expect(OutsideText.readBack(shown) == text)
        #expect(!shown.hasPrefix("::") || text.hasPrefix("::"))
    }

    @Test("Workflow-command data and properties cannot end the command or start another", arguments: hostile)
    func workflow(text: String) {
        let data = OutsideText.workflowData(OutsideText.visible(text))
        #expect(!data.contains("\n") && !data.contains("\r"))
        let property = OutsideText.workflowProperty(text)
        #expect(!property.contains(":") && !property.contains(",") && !property.contains("\n"))
    }

    @Test("Markup parses as XML 1.0 and keeps the text", arguments: hostile)
    func markup(text: String) throws {
        let xml = "<a b=\"\(OutsideText.markup(OutsideText.visible(text)))\">\(OutsideText.markup(text))</a>"
        let document = try XMLDocument(xmlString: xml)
        let attribute = try #require(document.rootElement()?.attribute(forName: "b")?.stringValue)
        #expect(OutsideText.readBack(attribute) == text)
    }

    @Test("A provider's lines stay lines on the console, each escaped and indented: none can begin a line")
    func linesStayLines() {
        let printed = "Traceback (most recent call last):\r\n::error ::forged\n\u{1b}[31mred"
        let shown = OutsideText.visibleLines(printed, indent: "      | ")
        #expect(!shown.contains("\\x0a"), "a newline reads as a new line")
        #expect(
            shown.split(separator: "\n").map(String.init) == [
                "Traceback (most recent call last):", "      | ::error ::forged", "      | \\x1b[31mred",
            ])
        // Negative control: `visible` alone shows the line break as text.
        #expect(OutsideText.visible(printed).contains("\\x0a"))
    }
}
