import Foundation
import HTTP2Server
import Testing

@testable import Scenario

/// When an `exec` provider is quiet (docs/scenario-language.md, "Quiet"): no process its command
/// started still runs.
@Suite struct ChildProcessTests {
    @Test("A process the command left in the background counts as running without its environment, in its group")
    func groupMemberWithoutEnvironment() throws {
        let children = Children()
        defer { children.stopAll() }
        let output = try OutputFile()
        // `env -i` clears the environment, marker and all, as `execve` does for a moment.
        let (shell, _) = try children.start("env -i sleep 1 &", environment: [:], output: output.handle)
        #expect(shell.wait(until: Date().addingTimeInterval(5)), "the shell returns at once")
        #expect(children.anyRunning(), "the background sleep still runs")
        let deadline = Date().addingTimeInterval(5)
        while children.anyRunning(), Date() < deadline { usleep(20_000) }
        #expect(!children.anyRunning(), "once it ends, nothing runs")
    }

    /// A command's process group is counted by its number, which the system gives out again once
    /// nothing holds it: the command's shell is kept unreaped while its group is counted, so no
    /// other process can take the number. An adversary's helper took the pid of an ended shell
    /// (`ns_last_pid`, as root) and led a group of that number: the runner waited for it, and the
    /// scenario failed "still busy". Needs root; without it, nothing is checked.
    @Test("An ended command's group number cannot be taken by another process while it is counted")
    func groupNumberNotReused() throws {
        guard access("/proc/sys/kernel/ns_last_pid", W_OK) == 0 else { return }
        let children = Children()
        defer { children.stopAll() }
        let output = try OutputFile()
        let (shell, _) = try children.start("true", environment: [:], output: output.handle)
        #expect(shell.wait(until: Date().addingTimeInterval(5)))
        // Tries to be born with the shell's pid, then leads a group of that number for 3 s.
        let thief = Process()
        thief.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        thief.arguments = [
            "-c",
            """
            import os, sys, time
            target = \(shell.pid)
            for _ in range(200):
                with open("/proc/sys/kernel/ns_last_pid", "w") as f: f.write(str(target - 1))
                pid = os.fork()
                if pid == 0:
                    if os.getpid() == target:
                        os.setpgid(0, 0); time.sleep(3)
                    os._exit(0)
                if pid == target: print("took", pid); sys.exit(0)
                os.waitpid(pid, 0)
            print("not taken")
            """,
        ]
        let pipe = Pipe()
        thief.standardOutput = pipe
        try thief.run()
        thief.waitUntilExit()
        let said = String(decoding: pipe.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self)
        #expect(
            !children.anyRunning(),
            "the thief (\(said.trimmingCharacters(in: .whitespacesAndNewlines))) is not the command's")
        #expect(said.hasPrefix("not taken"), "the shell's pid stays taken while its group is counted")
    }
}
