import CLinux
import Foundation
import Glibc
import HTTP2Server

/// ringside — tells a calling app's backend whether its VoIP pushes really make a phone ring.
let rootHelp = """
    ringside — a fake APNs, a model of the phone, and scenarios that say whether a VoIP push rings.

    Usage: ringside <command> [options]

    Commands:
    \(CommandSpec.summaries)

    'ringside <command> --help' describes a command; 'ringside --version' prints the version and
    those of nghttp2, OpenSSL and libcurl it runs with.

    Exit codes: 0 success, 1 an expectation failed, 2 a scenario did not parse or check,
    3 the run could not proceed (port busy, provider crashed, TLS failure), 64 bad arguments.
    """

OpenSSLProcess.keepStateUntilExit()
// glibc's fast bins off: a load frees each batch's arrays (a few hundred kilobytes) while the
// threads that built a push's small blocks free them on others, and each large free first merged
// every small block waiting in the fast bins (`malloc_consolidate`, 2.4% of a load's work in perf).
// Small blocks still go through each thread's cache. `bash bench/load.sh`: 60,000 calls a second
// with them, 65,000 without (GLIBC_TUNABLES=glibc.malloc.mxfast=0, two runs each).
_ = ringside_fast_bins_off()
// `$RINGSIDE` names this binary for the providers a scenario starts (`"$RINGSIDE" token …`),
// whatever the file is called: a copy renamed, or a wrapper's symlink target.
if getenv("RINGSIDE") == nil, let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
    setenv("RINGSIDE", path, 0)
}
let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "serve": status = ServeCommand.run(Array(arguments.dropFirst()))
case "token": status = TokenCommand.run(Array(arguments.dropFirst()))
case "explain": status = ExplainCommand.run(Array(arguments.dropFirst()))
case "send": status = SendCommand.run(Array(arguments.dropFirst()))
case "check": status = CheckCommand.run(Array(arguments.dropFirst()))
case "run": status = RunCommand.run(Array(arguments.dropFirst()))
case "replay": status = ReplayCommand.run(Array(arguments.dropFirst()))
case "record": status = RecordCommand.run(Array(arguments.dropFirst()))
case "init": status = InitCommand.run(Array(arguments.dropFirst()))
case "coverage": status = CoverageCommand.run(Array(arguments.dropFirst()))
case "--version", "version":
    Output.out(VersionCommand.text)
    status = ExitCode.success
case nil, "--help", "-h", "help":
    Output.out(rootHelp)
    status = arguments.isEmpty ? ExitCode.usage : ExitCode.success
default:
    Output.error(
        "error: unknown command <\(arguments[0])>; commands are \(CommandSpec.all.map(\.name).joined(separator: ", ")) (see 'ringside --help')"
    )
    status = ExitCode.usage
}
exit(status)
