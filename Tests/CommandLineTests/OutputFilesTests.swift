import Foundation
import MockAPNs
import TestSupport
import Testing

/// Files are written only where asked (issue 27): a planted symbolic link is refused with exit 3 and
/// a clear message, and the file it points at is left as it was.
@Suite struct OutputFilesTests {
    static let binary = Paths.ringside

    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "ringside-links-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "precious\n".write(toFile: folder + "/precious.txt", atomically: true, encoding: .utf8)
        return folder
    }

    static func untouched(_ folder: String) throws -> Bool {
        try String(contentsOfFile: folder + "/precious.txt", encoding: .utf8) == "precious\n"
    }

    @Test(
        "run --junit, --report and --transcript refuse a planted link",
        arguments: ["--junit", "--report", "--transcript"])
    func runRefusesLinks(option: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var target = folder + "/out"
        if option == "--transcript" {
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: target + "/01-a-call-rings.jsonl", withDestinationPath: folder + "/precious.txt")
        } else {
            try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: folder + "/precious.txt")
        }
        if option == "--report" { target = folder + "/out" }
        let result = try run(
            Self.binary, ["run", "--certs", Paths.certs, option, target, Paths.scenario("01-a-call-rings.ring")])
        #expect(result.status == 3, "\(result.stdout) \(result.stderr)")
        #expect((result.stdout + result.stderr).contains("is a symbolic link"), "\(result.stdout) \(result.stderr)")
        #expect(try Self.untouched(folder))
    }

    /// NSString.deletingLastPathComponent trapped on a one-character path (`--junit j`, `init x`):
    /// the folder of a path is Ringside's own now (`OutputFiles.folder(of:)`).
    @Test("A one-character file or folder name is written, not a crash")
    func oneCharacterNames() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for option in ["--junit", "--report"] {
            let result = try run(
                Self.binary, ["run", "--certs", Paths.certs, option, "j", Paths.scenario("01-a-call-rings.ring")],
                directory: folder)
            #expect(result.status == 0, "\(option): \(result.status) \(result.stderr.suffix(300))")
            #expect(FileManager.default.fileExists(atPath: folder + "/j"), "\(option)")
            try? FileManager.default.removeItem(atPath: folder + "/j")
        }
        for (target, said) in [
            ("./", "is a folder"), ("./x/", "names a folder, and there is none"), (".", "is a folder"),
        ] {
            let result = try run(
                Self.binary,
                ["run", "--certs", Paths.certs, "--junit", target, Paths.scenario("01-a-call-rings.ring")],
                directory: folder)
            #expect(result.status == 3, "\(target): \(result.status)")
            #expect(result.stderr.contains(said), "\(target): \(result.stderr.suffix(300))")
        }
        let initialised = try run(Self.binary, ["init", "x"], directory: folder)
        #expect(initialised.status == 0, "\(initialised.status) \(initialised.stderr.suffix(300))")
        #expect(
            FileManager.default.fileExists(atPath: folder + "/x/README.md")
                || FileManager.default.fileExists(atPath: folder + "/x"))
        for (path, parent) in [("j", "."), ("/j", "/"), ("a/b/", "a"), ("/", "/"), ("a//b", "a/"), ("./x", ".")] {
            #expect(OutputFiles.folder(of: path) == parent, "\(path)")
        }
    }

    /// Issue 46: `--junit /dev/full` run as root replaced the system's device with a regular file.
    /// A device or a pipe is written through in place, or refused; never renamed over. The devices
    /// here are made in a temporary folder (`mknod`, as root), so that a regression replaces those.
    @Test(
        "--junit and --report write through a device or a FIFO, never replace it",
        .enabled(if: getuid() == 0, "mknod needs root"))
    func devicesAreWrittenThrough() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, minor) in [("null", "3"), ("full", "7")] {
            let made = try run("/usr/bin/mknod", [folder + "/" + name, "c", "1", minor])
            #expect(made.status == 0, "\(made.stderr)")
        }
        func isCharacterDevice(_ path: String) -> Bool {
            var status = stat()
            return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
        }
        for option in ["--junit", "--report"] {
            let toNull = try run(
                Self.binary,
                ["run", "--certs", Paths.certs, option, folder + "/null", Paths.scenario("01-a-call-rings.ring")])
            #expect(toNull.status == 0, "\(option): \(toNull.stderr.suffix(300))")
            let toFull = try run(
                Self.binary,
                ["run", "--certs", Paths.certs, option, folder + "/full", Paths.scenario("01-a-call-rings.ring")])
            #expect(toFull.status == 3, "\(option): \(toFull.status)")
            #expect(toFull.stderr.contains("No space left on device"), "\(option): \(toFull.stderr.suffix(300))")
            #expect(isCharacterDevice(folder + "/null") && isCharacterDevice(folder + "/full"), "\(option)")
        }
        // A FIFO is written through: its reader gets the report.
        #expect(try run("/usr/bin/mkfifo", [folder + "/fifo"]).status == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "timeout 20 cat \"$0\" > \"$0.read\"", folder + "/fifo"]
        try reader.run()
        let toFIFO = try run(
            Self.binary,
            ["run", "--certs", Paths.certs, "--junit", folder + "/fifo", Paths.scenario("01-a-call-rings.ring")])
        reader.waitUntilExit()
        #expect(toFIFO.status == 0, "\(toFIFO.stderr.suffix(300))")
        #expect(try String(contentsOfFile: folder + "/fifo.read", encoding: .utf8).contains("<testsuite"))
        var status = stat()
        #expect(lstat(folder + "/fifo", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        // A planted link to a device is refused, as a link to a file is.
        try FileManager.default.createSymbolicLink(atPath: folder + "/linked", withDestinationPath: folder + "/null")
        let linked = try run(
            Self.binary,
            ["run", "--certs", Paths.certs, "--junit", folder + "/linked", Paths.scenario("01-a-call-rings.ring")])
        #expect(linked.status == 3 && linked.stderr.contains("symbolic link to a device"), "\(linked.stderr)")
        // /dev/stdout, a link to the standard output, is where the user asked for it.
        let toStdout = try run(
            Self.binary,
            ["run", "--certs", Paths.certs, "--junit", "/dev/stdout", Paths.scenario("01-a-call-rings.ring")])
        #expect(toStdout.status == 0 && toStdout.stdout.contains("<testsuite"), "\(toStdout.stderr.suffix(300))")
    }

    /// The adversary's findings of session 16, each one a case here.
    @Test(
        "A link named with a trailing slash is refused; /dev/stdout redirected to a file is written there; a FIFO nobody reads is refused at once; a private report stays private"
    )
    func secondAdversary() throws {
        let folder = NSTemporaryDirectory() + "ringside-adversary-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/target", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = Paths.scenario("01-a-call-rings.ring")
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/target")
        let linked = try run(
            Paths.ringside, ["run", "--certs", Paths.certs, "--transcript", folder + "/link/", scenario])
        #expect(linked.status == 3 && linked.stderr.contains("is a symbolic link"), "\(linked.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/target").isEmpty)

        let redirected = try run(
            "/bin/sh",
            [
                "-c", "\"$0\" run --certs \"$1\" --junit /dev/stdout \"$2\" > \"$3\"", Paths.ringside, Paths.certs,
                scenario,
                folder + "/out.txt",
            ])
        #expect(redirected.status == 0, "\(redirected.stderr)")
        let out = try String(contentsOfFile: folder + "/out.txt", encoding: .utf8)
        #expect(out.contains("<testsuite") && out.contains("scenarios: 1 passed"), "\(out)")

        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        let fifo = try run(Paths.ringside, ["run", "--certs", Paths.certs, "--junit", folder + "/fifo", scenario])
        #expect(fifo.status == 3 && fifo.stderr.contains("nobody reads"), "\(fifo.stderr)")

        let report = folder + "/private.xml"
        #expect(
            FileManager.default.createFile(atPath: report, contents: Data(), attributes: [.posixPermissions: 0o600]))
        _ = try run(Paths.ringside, ["run", "--certs", Paths.certs, "--junit", report, scenario])
        let mode = try FileManager.default.attributesOfItem(atPath: report)[.posixPermissions] as? Int
        #expect(mode == 0o600, "mode \(String(mode ?? 0, radix: 8))")
    }

    /// helper-4's findings of session 16, each one a case here: a FIFO as a streaming transcript
    /// blocked for ever, a hard-linked transcript emptied the file it shares, a link among the
    /// folders of a path was followed.
    @Test(
        "A transcript FIFO nobody reads is refused at once; a hard link is left alone; a linked folder in the path is refused"
    )
    func thirdAdversary() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scenario = Paths.scenario("01-a-call-rings.ring")
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        // `timeout` turns a hang into a failure (124) instead of a stuck test.
        let served = try run(
            "/usr/bin/timeout",
            [
                "-k", "5", "20", Self.binary, "serve", "--certs", Paths.certs, "--port", "0", "--transcript",
                folder + "/fifo",
            ])
        #expect(served.status == 3 && served.stderr.contains("nobody reads"), "\(served.status) \(served.stderr)")
        try FileManager.default.createDirectory(atPath: folder + "/t", withIntermediateDirectories: true)
        #expect(mkfifo(folder + "/t/01-a-call-rings.jsonl", 0o600) == 0)
        let streamed = try run(
            "/usr/bin/timeout",
            ["-k", "5", "20", Self.binary, "run", "--certs", Paths.certs, "--transcript", folder + "/t", scenario])
        #expect(
            (streamed.stdout + streamed.stderr).contains("nobody reads"),
            "\(streamed.status) \(streamed.stdout) \(streamed.stderr)")
        #expect(streamed.status != 124 && streamed.status != 0, "\(streamed.status)")

        try FileManager.default.createDirectory(atPath: folder + "/h", withIntermediateDirectories: true)
        #expect(link(folder + "/precious.txt", folder + "/h/01-a-call-rings.jsonl") == 0)
        let hardLinked = try run(
            Self.binary, ["run", "--certs", Paths.certs, "--transcript", folder + "/h", scenario])
        #expect(hardLinked.status == 0, "\(hardLinked.stderr)")
        #expect(try Self.untouched(folder))
        let transcript = try String(contentsOfFile: folder + "/h/01-a-call-rings.jsonl", encoding: .utf8)
        #expect(transcript.contains("\"event\""), "\(transcript.prefix(200))")

        try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/plink", withDestinationPath: folder + "/elsewhere")
        for arguments in [
            ["run", "--certs", Paths.certs, "--junit", "plink/j.xml", scenario],
            ["run", "--certs", Paths.certs, "--report", folder + "/plink/r.html", scenario],
            ["run", "--certs", Paths.certs, "--transcript", "plink/t", scenario],
            ["init", "plink/sub"],
        ] {
            let result = try run(Self.binary, arguments, directory: folder)
            #expect(result.status == 3, "\(arguments): \(result.status) \(result.stderr.suffix(300))")
            #expect(result.stderr.contains("goes through"), "\(arguments): \(result.stderr.suffix(300))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/elsewhere").isEmpty)
    }

    /// helper-6's findings of session 17: a link in the current folder's tree reached through an
    /// absolute path (`$PWD` entered by a link, `outside/../cwd/…`), a link to a FIFO or through a
    /// linked folder to a device, and `/dev/fd/../..` were written through.
    @Test("Links are refused however the path reaches them, to a pipe or a device too, and /dev/fd/N is digits only")
    func fourthAdversary() throws {
        let root = NSTemporaryDirectory() + "ringside-reach-\(UUID().uuidString)"
        let cwd = root + "/cwd"
        try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "keep\n".write(toFile: root + "/outside/victim", atomically: true, encoding: .utf8)
        #expect(mkfifo(root + "/outside/fifo", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/cwdlink", withDestinationPath: "cwd")
        try FileManager.default.createSymbolicLink(atPath: cwd + "/reports", withDestinationPath: "../outside")
        try FileManager.default.createSymbolicLink(atPath: cwd + "/j.xml", withDestinationPath: "../outside/fifo")
        let targets = [
            root + "/cwdlink/reports/j.xml", root + "/outside/../cwd/reports/victim", root + "/./cwd/reports/n.xml",
            "j.xml", "reports/fifo", "/dev/fd/../.." + root + "/outside/victim",
        ]
        for target in targets {
            let result = try run(
                Self.binary,
                ["run", "--certs", Paths.certs, "--junit", target, Paths.scenario("01-a-call-rings.ring")],
                directory: cwd)
            #expect(result.status == 3, "\(target): \(result.status) \(result.stderr.suffix(300))")
            // Refused for the link, not because the FIFO has no reader; `/dev/fd/../..` is a path
            // like any other, through a folder that is not there.
            let why = target.hasPrefix("/dev/fd/") ? "does not exist" : "symbolic link"
            #expect(result.stderr.contains(why), "\(target): \(result.stderr.suffix(300))")
        }
        #expect(try String(contentsOfFile: root + "/outside/victim", encoding: .utf8) == "keep\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/outside").sorted() == ["fifo", "victim"])
    }

    @Test("serve --transcript refuses a planted link")
    func serveRefusesLink() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/t.jsonl", withDestinationPath: folder + "/precious.txt")
        let result = try run(
            Self.binary, ["serve", "--certs", Paths.certs, "--port", "0", "--transcript", folder + "/t.jsonl"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("is a symbolic link"), "\(result.stderr)")
        #expect(try Self.untouched(folder))
    }

    @Test("init refuses a linked or non-empty folder and writes nothing")
    func initRefuses() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/ringside", withDestinationPath: folder + "/elsewhere")
        let linked = try run(Self.binary, ["init", "ringside"], directory: folder)
        #expect(linked.status == 3, "\(linked.stderr)")
        #expect(linked.stderr.contains("is a symbolic link"), "\(linked.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/elsewhere").isEmpty)
        let notEmpty = try run(Self.binary, ["init", "."], directory: folder)
        #expect(notEmpty.status == 3)
        #expect(notEmpty.stderr.contains("is not empty"), "\(notEmpty.stderr)")
        // Nothing half-written is left beside it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [
                "elsewhere", "precious.txt", "ringside",
            ])
    }
}

/// `serve`'s open-file limit (issue 27): the soft limit is raised to the hard one, and a hard limit
/// that cannot hold `--max-connections` is said at start-up.
@Suite struct FileLimitTests {
    @Test("serve raises the soft open-file limit to the hard one and warns when it is still too low")
    func raisesTheLimit() throws {
        let script = """
            ulimit -Sn 1024; ulimit -Hn 4096
            "$0" serve --certs "$1" --port 0 --quiet >/dev/null 2>"$2" &
            pid=$!; sleep 1.5; grep 'Max open files' /proc/$pid/limits; kill $pid; wait $pid 2>/dev/null; cat "$2"
            """
        let log = NSTemporaryDirectory() + "ringside-limit-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let result = try run("/bin/bash", ["-c", script, Paths.ringside, Paths.certs, log])
        let limits =
            result.stdout.split(separator: "\n").first { $0.hasPrefix("Max open files") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) } ?? []
        #expect(limits.count >= 5 && limits[3] == "4096" && limits[4] == "4096", "\(result.stdout)")
        #expect(result.stdout.contains("warning: the open-file limit is 4096"), "\(result.stdout)")
    }
}

/// Errors about files say which file, which line and what is wrong, in words (issue 27).
@Suite struct FileErrorTests {
    @Test("A FIFO as a scenario and /dev/zero as a transcript are refused at once, not read for ever")
    func notRegularFiles() throws {
        let fifo = NSTemporaryDirectory() + "ringside-fifo-\(UUID().uuidString).ring"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: fifo) }
        let check = try run(Paths.ringside, ["check", fifo])
        // A scenario that cannot be read is one that does not check (issue 46: exit 2, as the README says).
        #expect(check.status == 2 && check.stderr.contains("is not a regular file"), "\(check.stderr)")
        let replay = try run(
            Paths.ringside,
            ["replay", "--certs", Paths.certs, "/dev/zero", "--scenario", Paths.scenario("01-a-call-rings.ring")])
        #expect(replay.status == 3 && replay.stderr.contains("/dev/zero is not a regular file"), "\(replay.stderr)")
    }

    @Test("A transcript with one bad byte: file:line: not valid UTF-8, and which event")
    func transcriptBadByte() throws {
        let path = NSTemporaryDirectory() + "ringside-bad-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var data = Data(#"{"event":"connection-opened"}"#.utf8 + [10])
        data.append(contentsOf: Array(#"{"event":"push","x":""#.utf8) + [0xFF] + Array("\"}\n".utf8))
        try data.write(to: URL(fileURLWithPath: path))
        let result = try run(
            Paths.ringside,
            ["replay", "--certs", Paths.certs, path, "--scenario", Paths.scenario("01-a-call-rings.ring")])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("\(path):2: not valid UTF-8 (event 2)"), "\(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain"))
    }
}

/// Resources bounded by design (issue 27): a scenario file over the documented size is refused, and
/// a report of many pushes stays a page a browser opens.
@Suite struct BoundedOutputTests {
    @Test("check and run refuse a scenario file over 1 MiB, saying so")
    func largeScenarioRefused() throws {
        let path = NSTemporaryDirectory() + "ringside-large-\(UUID().uuidString).ring"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ("scenario: large\nsteps:\n" + String(repeating: "  - wait: 1ms\n", count: 90_000)).write(
            toFile: path, atomically: true, encoding: .utf8)
        for command in ["check", "run"] {
            let result = try run(
                Paths.ringside,
                [command, "--certs", Paths.certs, path].filter {
                    command == "run" || $0 != "--certs" && $0 != Paths.certs
                })
            #expect(result.status == 2, "\(command)")
            #expect(
                (result.stdout + result.stderr).contains("is larger than 1 MiB"), "\(command): \(result.stderr)")
        }
    }

    @Test("A report of 120 calls shows the documented number of messages and says what it left out")
    func reportBounded() throws {
        let folder = NSTemporaryDirectory() + "ringside-report-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let calls = String(repeating: "  - call: alice\n", count: 120)
        try
            "scenario: many\nworld:\n  throttle: off\nphones:\n  - name: alice\nsteps:\n  - register: alice\n\(calls)  - expect phone: alice\n    outcome: rang\n"
            .write(toFile: folder + "/many.ring", atomically: true, encoding: .utf8)
        let result = try run(
            Paths.ringside,
            ["run", "--certs", Paths.certs, "--report", folder + "/r.html", folder + "/many.ring"])
        #expect(result.status == 0, "\(result.stdout)")
        let page = try String(contentsOfFile: folder + "/r.html", encoding: .utf8)
        #expect(page.components(separatedBy: "<div class=\"event ").count - 1 == 400)
        #expect(page.contains("more messages left out of this diagram"))
    }
}
