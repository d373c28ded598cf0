import APNs
import Dispatch
import Foundation
import Glibc
import Scenario

/// Writes to standard output or error through the file descriptor, unbuffered: safe from any thread
/// in Swift 6 (`stderr` is a shared mutable global), and a script reading stdout sees lines at once.
///
/// Every line goes through `OutsideText.safeLine`: whatever a message quotes from outside, no raw
/// control character and no workflow command reaches a terminal or a CI log. Ringside's own
/// annotations (`--format github`) are written with `command`, which alone may start with `::`.
enum Output {
    static func out(_ text: String) { write(1, safe(text) + "\n") }
    static func error(_ text: String) { write(2, safe(text) + "\n") }
    /// A workflow command Ringside wrote (GitHubAnnotations: its data and properties are escaped).
    /// Its data and properties are already escaped (OutsideText.workflowData); a stray line break
    /// would still end the command, so it is escaped again here.
    static func command(_ line: String) {
        write(1, line.replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A") + "\n")
    }

    /// A cursor movement of Ringside's own on a terminal (a load's status redrawn in place), written
    /// to standard error as it is: never text from outside.
    static func terminalControl(_ sequence: String) { write(2, sequence) }

    /// Each of Ringside's own lines made safe; CR LF and a lone CR inside a line are shown, not obeyed.
    static func safe(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { OutsideText.safeLine(String($0)) }
            .joined(separator: "\n")
    }

    private static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// Exit codes (README, "Exit codes"): 0 all passed, 1 an expectation failed, 2 a scenario did not parse
/// or check, 3 the run could not proceed, 64 bad arguments.
enum ExitCode {
    static let success: Int32 = 0
    static let expectationFailed: Int32 = 1
    static let scenarioInvalid: Int32 = 2
    static let cannotProceed: Int32 = 3
    static let usage: Int32 = 64
}

/// Runs a command's body: a usage error exits 64, any other error 3, each with its message.
func runCommand(_ body: () throws -> Int32) -> Int32 {
    do {
        return try body()
    } catch let error as UsageError {
        Output.error("error: \(error.message)")
        return ExitCode.usage
    } catch is ProviderFileInvalid {
        return ExitCode.scenarioInvalid
    } catch {
        Output.error("error: \(FileErrorText.describe(error))")
        return ExitCode.cannotProceed
    }
}

/// Foundation's file errors in words. Its own text is `Error Domain=NSCocoaErrorDomain Code=516 …`
/// (issue 46): here, which path, and the system's reason.
enum FileErrorText {
    static func describe(_ error: any Error) -> String {
        let ns = error as NSError
        guard ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain else { return "\(error)" }
        let path = (ns.userInfo[NSFilePathErrorKey] as? String) ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
        let underlying = (ns.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        let why: String
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            why = String(cString: strerror(Int32(underlying.code)))
        } else if ns.domain == NSPOSIXErrorDomain {
            why = String(cString: strerror(Int32(ns.code)))
        } else if ns.code == CocoaError.fileWriteFileExists.rawValue {
            why = "it already exists"
        } else {
            why = ns.localizedDescription
        }
        return OutsideText.visible(path.map { "cannot use \($0): \(why)" } ?? why)
    }
}

/// Ctrl-C, SIGTERM or SIGHUP during `run` or `replay`: stop every provider process the scenarios started
/// (they would be left to init otherwise), then exit with 128 + the signal.
enum InterruptStopsProviders {
    /// Also makes the run the reaper of orphaned provider processes; `ProcessTree.stopOrphans()` at
    /// its end stops them.
    static func install() -> [any DispatchSourceSignal] {
        ProcessTree.adoptOrphans()
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // A load running: the first Ctrl-C stops it and what ran is judged (LoadInterrupt).
                if number == SIGINT, LoadInterrupt.request() {
                    Output.error(
                        "ringside: Ctrl-C: the load stops placing calls, and what ran is judged (Ctrl-C again to quit)")
                    return
                }
                ProcessTree.stopAll()
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }
}
