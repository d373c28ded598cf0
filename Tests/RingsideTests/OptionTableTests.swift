import Testing

@testable import ringside

/// Each command's option table is the one declaration of its options; its rendered help follows
/// it row by row. In-process, no process started (the binary's `--help` and parser against the
/// tables: CommandLineTests' OptionTableBinaryTests).
@Suite("Option tables")
struct OptionTableTests {
    @Test("The rendered help of each command matches what its table declares, row by row")
    func rowsRenderInOrder() {
        for spec in CommandSpec.all {
            let lines = spec.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let rows = lines.drop { $0 != "Options:" }.dropFirst().filter { $0.hasPrefix("  --") }
            #expect(
                rows.map { String($0.dropFirst(2).prefix { $0 != " " }) } == spec.options.map(\.name), "\(spec.name)")
        }
    }
}
