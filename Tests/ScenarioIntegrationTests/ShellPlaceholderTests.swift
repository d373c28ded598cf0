import Foundation
import ScenarioLanguage
import TestSupport
import Testing

/// A placeholder's value is one shell word, whatever it holds (issue 46): `init` in a folder named
/// `repo $(touch M)` ran `touch M` through `{dir}`. Each value is run through `sh -c` in each place
/// a template may write it, and must come out as itself with nothing run.
@Suite struct ShellPlaceholderTests {
    static let hostile = [
        "repo $(touch MARK)", "`touch MARK`", "it's", "a \"b\" c", #"back\slash"#, "new\nline", "$HOME",
        " lead and trail ", "*", "", "'; touch MARK; '", "\"; touch MARK; \"", "${IFS}x",
    ]
    /// Where a template may write a placeholder, and what the shell then prints of it.
    static let places = [
        ("bare", "{dir}", ""), ("single-quoted", "'{dir}'", ""), ("double-quoted", "\"{dir}\"", ""),
        ("in a word", "x{dir}/service.py", "x|/service.py"), ("in quotes with text", "\"-d {dir}\"", "-d |"),
        ("after an escaped quote", "\\' {dir}", "'|"),
        // A command substitution is a new command, bare, even inside double quotes (session 16).
        ("in $() in double quotes", "\"$(printf '%s' {dir})\"", ""),
        ("in double quotes in $() in double quotes", "\"$(printf '%s' \"{dir}\")\"", ""),
        ("in backticks in double quotes", "\"`printf '%s' {dir}`\"", ""),
        ("after an escaped dollar", "\"\\$(x) {dir}\"", "$(x) |"),
        // The template's own backslash right before the value stays a backslash (session 16).
        ("right after a backslash", "\\{dir}", "\\|"),
        ("right after a backslash in double quotes", "\"\\{dir}\"", "\\|"),
        ("right after a backslash in backticks", "\"`printf '%s' \\{dir}`\"", "\\|"),
    ]

    @Test("Every value comes out of sh -c as itself, in every place, and runs nothing", arguments: hostile)
    func oneWord(value: String) throws {
        let folder = NSTemporaryDirectory() + "ringside-shell-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, written, around) in Self.places {
            let template = Template(
                text: "printf '%s|' " + written,
                range: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1))
            let command = template.filledForShell([.dir: value])
            let result = try run("/bin/sh", ["-c", command], directory: folder)
            let parts = around.split(separator: "|", omittingEmptySubsequences: false)
            let expected =
                (around.isEmpty ? value : parts[0] + value + parts[1]).replacingOccurrences(of: "|", with: "") + "|"
            // An escaped quote ends the word before the value: two words, each printed.
            let printed = name == "after an escaped quote" ? "'|" + value + "|" : expected
            #expect(result.stdout == printed, "\(name): \(command)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/MARK"), "\(name) ran a command: \(command)")
        }
    }

    /// helper-6's contexts of session 17: where the reading of the command cannot be sure of the
    /// quoting, the checker refuses the placeholder instead of guessing; a comment ends at its line.
    @Test("A placeholder in a comment, after <<, inside ${…} or in quotes inside backticks is refused")
    func uncertainPlacesAreRefused() throws {
        for text in [
            "echo hi # {dir}", "cat <<END\n{dir}\nEND", "echo \"${X:-\"{dir}\"}\"", "echo ${X:-{dir}}",
            "echo `echo \"{dir}\"`", "echo `echo \"\\{dir}\"`", "echo `echo \\{dir}`",
            // helper-7's: a `#` after `)` is a comment to the shell; a case pattern's `)` ends no `$(`.
            "echo \"$(case x in x) echo {dir};; esac)\"",
        ] {
            let template = Template(
                text: text, range: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1))
            #expect(!template.uncertainInShell.isEmpty, "\(text)")
        }
        for text in ["echo {dir}", "echo \"{dir}\" '{dir}' \"$(echo {dir})\"", "echo `echo {dir}`", "echo x#{dir}"] {
            let template = Template(
                text: text, range: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1))
            #expect(template.uncertainInShell.isEmpty, "\(text)")
        }
        // An apostrophe in a comment opens nothing: the next line's value is quoted as it stands.
        let folder = NSTemporaryDirectory() + "ringside-comment-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // After `)` too (helper-7's `(true)#'`); after a closing quote or `}` a `#` continues its
        // word, and the `'` after it opens a quote (helper-8's `echo 'a'#'`).
        for text in [
            "echo start # don't worry\nprintf '%s|' {dir}", "echo start;(true)#'\nprintf '%s|' {dir}\n(true)#'",
            "echo start;: 'a'#'\nprintf %s {dir}\n'; printf '%s|' {dir}",
            "echo start;: }#'\n{dir}\n'; printf '%s|' {dir}",
        ] {
            for value in Self.hostile {
                let template = Template(
                    text: text, range: SourceRange(start: SourceLocation(line: 1, column: 1), length: 1))
                let result = try run("/bin/sh", ["-c", template.filledForShell([.dir: value])], directory: folder)
                #expect(result.stdout == "start\n" + value + "|", "\(text): \(value)")
                #expect(!FileManager.default.fileExists(atPath: folder + "/MARK"), "\(value) ran a command")
            }
        }
    }
}
