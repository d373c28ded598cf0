import Foundation
import TestSupport
import Testing

/// A release binary finds its test credentials and the scenario library from its own path, run from
/// any working folder (issue 29): the tarball's `<prefix>/bin/ringside` beside `<prefix>/certs-test`
/// and `<prefix>/scenarios`, and the .deb's `/usr/bin/ringside` beside `/usr/share/ringside/…`.
/// The debug binary, copied into each layout (a one-scenario library, so the checkout's own, which a
/// debug build falls back to, would show), must pick the layout's files.
@Suite struct ReleaseLayoutTests {
    @Test("The binary finds certs-test/ and scenarios/ beside itself", arguments: ["tarball", "deb"])
    func findsItsFiles(layout: String) throws {
        let folder = NSTemporaryDirectory() + "ringside-layout-\(layout)-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let prefix = layout == "deb" ? folder + "/usr" : folder
        let share = layout == "deb" ? prefix + "/share/ringside" : prefix
        let manager = FileManager.default
        try manager.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: share + "/scenarios/phone", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: folder + "/work", withIntermediateDirectories: true)
        let binary = prefix + "/bin/ringside"
        // A hard link keeps /proc/self/exe in the layout without copying the debug binary; a copy
        // where the temporary folder is on another file system.
        do { try manager.linkItem(atPath: Paths.ringside, toPath: binary) } catch {
            try manager.copyItem(atPath: Paths.ringside, toPath: binary)
        }
        try manager.copyItem(atPath: Paths.certs, toPath: share + "/certs-test")
        try manager.copyItem(
            atPath: Paths.scenario("01-a-call-rings.ring"), toPath: share + "/scenarios/phone/01-a-call-rings.ring")

        // `send --curl` names the CA it would trust: the layout's, from a folder without certs-test/.
        let send = try run(binary, ["send", "--curl"], directory: folder + "/work")
        #expect(send.status == 0, "\(send.stderr)")
        #expect(send.stdout.contains(share + "/certs-test/ca.pem"), "\(send.stdout)")

        let library = try run(binary, ["run", "--library"], directory: folder + "/work")
        #expect(library.status == 0, "\(library.stdout)\n\(library.stderr)")
        #expect(library.stdout.contains(share + "/scenarios/phone/01-a-call-rings.ring"), "\(library.stdout)")
        #expect(library.stdout.contains("scenarios: 1 passed, 0 failed"), "\(library.stdout)")

        let coverage = try run(binary, ["coverage", "--library"], directory: folder + "/work")
        #expect(coverage.stdout.contains(share + "/scenarios/phone/01-a-call-rings.ring"), "\(coverage.stdout)")
    }
}
