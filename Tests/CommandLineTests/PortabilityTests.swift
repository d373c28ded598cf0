import Foundation
import HTTP2Server
import TestSupport
import Testing

/// What a macOS build of `RingsideTesting` compiles (issue 29 point 4). Not built on macOS here:
/// the portable paths it takes run on Linux instead — the poll(2) event loop and its pipe wake-up
/// (`RINGSIDE_EVENT_LOOP=poll`) — and a lint keeps every Linux-only call of the library's modules
/// inside `#if os(Linux)` (or `#if canImport(Glibc)`).
@Suite struct PortabilityTests {
    /// The modules `RingsideTesting` is built from (Package.swift), and the C shim they include.
    static let modules = [
        "APNs", "World", "ScenarioLanguage", "Provider", "HTTP2Server", "MockAPNs", "Scenario", "RingsideTesting",
    ]

    /// Calls, constants and spellings that exist on Linux only (or take another type on Darwin).
    static let linuxOnly = [
        "epoll_", "EPOLL", "eventfd", "EFD_", "prctl", "MSG_NOSIGNAL", "TCP_CORK", "MADV_HUGEPAGE", "SOCK_NONBLOCK",
        "SOCK_CLOEXEC", "SOCK_STREAM.rawValue", "import Glibc", "Glibc.", "/proc/self/fd", "pthread_t()",
        "posix_spawn_file_actions_t()", "posix_spawnattr_t()",
    ]

    /// Lines of Swift that use a Linux-only word outside a Linux-only branch, as `file:line: text`.
    static func unguarded(_ text: String, file: String) -> [String] {
        var branches: [Bool] = []  // for each open #if: whether the branch we are in is Linux-only
        var found: [String] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if ") {
                branches.append(
                    line.contains("os(Linux)") && !line.contains("!os(Linux)") || line.contains("canImport(Glibc)"))
                continue
            }
            if line.hasPrefix("#elseif") || line.hasPrefix("#else") {
                if !branches.isEmpty { branches[branches.count - 1] = false }
                continue
            }
            if line.hasPrefix("#endif") {
                _ = branches.popLast()
                continue
            }
            if line.hasPrefix("//") || branches.contains(true) { continue }
            if let word = linuxOnly.first(where: { line.contains($0) }) {
                found.append("\(file):\(offset + 1): \(word) in <\(line)>")
            }
        }
        return found
    }

    @Test("Every Linux-only call in RingsideTesting's modules is inside a Linux-only branch")
    func linuxOnlyCallsAreGuarded() throws {
        var found: [String] = []
        for module in Self.modules {
            let folder = Paths.root + "/Sources/" + module
            for file in try FileManager.default.subpathsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                found += Self.unguarded(text, file: "Sources/\(module)/\(file)")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
        // The C shim: Linux headers and prctl only under __linux__, a fallback for the others.
        let shim = try String(contentsOfFile: Paths.root + "/Sources/CLinux/shim.h", encoding: .utf8)
        let linux = try #require(shim.components(separatedBy: "#ifdef __linux__").dropFirst().first)
        let (guarded, other) = try #require(linux.components(separatedBy: "\n#else\n").splitFirst())
        #expect(guarded.contains("#include <sys/epoll.h>") && guarded.contains("prctl(PR_SET_CHILD_SUBREAPER"))
        #expect(!shim.components(separatedBy: "#ifdef __linux__")[0].contains("#include <sys/"))
        #expect(other.contains("ringside_become_subreaper") && other.contains("ringside_name_this_thread"))
        #expect(!other.contains("prctl(") && !other.contains("epoll"))
    }

    /// The lint can fail: an unguarded call, and one after `#else`, are found; a guarded one is not.
    @Test("The lint finds an unguarded call")
    func lintCanFail() {
        #expect(Self.unguarded("send(fd, p, n, Int32(MSG_NOSIGNAL))", file: "x").count == 1)
        #expect(
            Self.unguarded(
                "#if os(Linux)\n  epoll_wait(a, b, c, d)\n#else\n  epoll_wait(a, b, c, d)\n#endif", file: "x"
            ).count == 1)
        #expect(Self.unguarded("#if os(Linux)\n  import Glibc\n#endif", file: "x").isEmpty)
        #expect(Self.unguarded("#if !os(Linux)\n  prctl(1)\n#endif", file: "x").count == 1)
    }

    @Test("The portable poll loop serves pushes in this process: Apple's example, and again on new connections")
    func pollLoopServes() throws {
        let server = try MockServer(eventLoop: .poll)
        for _ in 0..<5 {
            let response = try Curl.applePush(server)
            #expect(response.status == 200)
        }
        let refused = try Curl.applePush(server, headers: ["apns-priority": "7"])
        #expect(refused.status == 400)
    }

    @Test("The whole scenario library passes on the portable poll loop (RINGSIDE_EVENT_LOOP=poll)")
    func libraryOnPollLoop() throws {
        let result = try run(
            "/usr/bin/env",
            [
                "RINGSIDE_EVENT_LOOP=poll", Paths.ringside, "run", "--certs", Paths.certs, "--jobs", "2",
                Paths.root + "/scenarios",
            ])
        #expect(result.status == 0, "\(result.stdout.suffix(2000))")
        #expect(result.stdout.contains(" passed, 0 failed"))
    }
}

extension Array where Element == String {
    /// The first element and the rest joined again, when there are two or more.
    fileprivate func splitFirst() -> (String, String)? {
        count >= 2 ? (self[0], dropFirst().joined(separator: "\n#else\n")) : nil
    }
}
