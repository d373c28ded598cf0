import CLinux
import Foundation
import HTTP2Server
import Synchronization

/// A child's standard output and error, kept in a temporary file (a pipe nobody reads would fill
/// and block the child); its last lines are what failures show.
final class OutputFile {
    let path: String
    let handle: FileHandle

    init() throws {
        path = NSTemporaryDirectory() + "/ringside-output-\(UUID().uuidString).log"
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw ScenarioError("cannot create \(path) for a provider's output") }
        self.handle = handle
    }

    /// The last lines written, from at most the last 8 KiB, with control characters (terminal colours,
    /// NUL) shown as `�`: reports print them and XML cannot hold them.
    func tail(lines: Int = ShellCommand.keptLines) -> [String] {
        guard let reader = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? reader.close() }
        let size = (try? reader.seekToEnd()) ?? 0
        try? reader.seek(toOffset: size > 8192 ? size - 8192 : 0)
        let data = reader.readAllRetryingInterrupts()
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: true).suffix(lines).map { line in
            String(line.map { $0.isASCII && ($0.asciiValue! < 32 || $0.asciiValue! == 127) && $0 != "\t" ? "�" : $0 })
        }
    }

    deinit {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A shell command started with posix_spawn, in a process group of its own, with SIGPIPE at its
/// default. (Foundation's `Process` on Linux learns of an exit through a socket its child inherits,
/// so it waits for every process the command left in the background too; `waitpid` answers for the
/// shell alone.)
final class ChildProcess {
    let pid: pid_t
    private var exitStatus: Int32?

    /// Starts `/bin/sh -c command` with `environment` added to ours (and `ProcessTree.variable` set to
    /// `marker`), its standard output and error appended to `output`.
    init(command: String, environment: [String: String], marker: String, output: FileHandle) throws {
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        variables[ProcessTree.variable] = marker
        #if os(Linux)
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output.fileDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, output.fileDescriptor, 2)
        // Nothing else of ours: not the mock's sockets, nor a pipe whose end tells our own parent
        // that we have ended (a daemon holding it would keep that parent waiting).
        for fd in Self.openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] =
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in arguments + environment { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, environment)
        guard result == 0 else { throw ScenarioError("cannot start /bin/sh: \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// This process's open file descriptors.
    static func openDescriptors() -> [Int32] {
        #if os(Linux)
            let folder = "/proc/self/fd"
        #else
            let folder = "/dev/fd"
        #endif
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap { Int32($0) }
    }

    /// The exit status once the shell has ended (128 + N when killed by signal N), else nil. The
    /// shell is not reaped here: while it is a zombie no other process can take its pid, nor so its
    /// process group's number, which `ProcessTree.isRunning` counts by (`Children` reaps it once the
    /// group is empty, `ProcessTree.stop` at the scenario's end).
    var status: Int32? {
        if exitStatus == nil {
            let status = ringside_exit_status_unreaped(pid)
            if status >= 0 {
                exitStatus = status
            } else if status == -2 {
                exitStatus = 128 + SIGKILL  // reaped by `ProcessTree.stop`
            }
        }
        return exitStatus
    }

    var isRunning: Bool { status == nil }

    /// Waits until the shell ends or `deadline` passes; true when it ended.
    func wait(until deadline: Date) -> Bool {
        while isRunning, Date() < deadline { usleep(2_000) }
        return !isRunning
    }
}

/// Every process a scenario's commands started, by process group and by a variable in their
/// environment (which they inherit whatever they do to their group), so that the end of the
/// scenario — or a signal that ends the run — stops them all, background ones too.
public enum ProcessTree {
    static let variable = "RINGSIDE_PROVIDER_RUN"
    /// Marker → process group, for every tree not yet stopped, in every scenario of this process;
    /// 0 once the group was empty and its leader reaped (its number may be another's by then).
    private static let live = Mutex<[String: pid_t]>([:])

    static func register(marker: String, group: pid_t) { live.withLock { $0[marker] = group } }

    /// The tree's group is empty and its leader, `leader`, has ended: the leader is reaped and the
    /// group forgotten, before its number can be reused (`isRunning`, `stop` no longer use it).
    static func forgetGroup(marker: String, leader: pid_t) {
        live.withLock { if $0[marker] == leader { $0[marker] = 0 } }
        _ = waitpid(leader, nil, WNOHANG)
    }

    /// SIGTERM to the tree, then SIGKILL to what is left after 2 s.
    static func stop(marker: String) {
        guard let group = live.withLock({ $0[marker] }) else { return }
        // Forgotten only once the tree is gone: a signal arriving meanwhile still finds it.
        defer { _ = live.withLock { $0.removeValue(forKey: marker) } }
        for signal in [SIGTERM, SIGKILL] {
            // A forgotten group (0) is signalled no more: its number may be another's by now.
            if group != 0 { kill(-group, signal) }
            let processes = find(marker)
            for pid in processes { kill(pid, signal) }
            // The group's leader is our child: reaped here, it stops counting as alive.
            func alive() -> Bool {
                guard group != 0 else { return !find(marker).isEmpty }
                _ = waitpid(group, nil, WNOHANG)
                // Members that died after their parent were adopted by this process (a subreaper, see
                // `adoptOrphans`): as zombies they would keep the group alive until reaped here.
                while waitpid(-group, nil, WNOHANG) > 0 {}
                return !find(marker).isEmpty || kill(-group, 0) == 0
            }
            let deadline = Date().addingTimeInterval(2)
            while alive(), Date() < deadline { usleep(20_000) }
            if !alive() { return }
        }
    }

    /// Stops every tree of every scenario (when a signal ends `ringside run`), then whatever escaped
    /// them (see `adoptOrphans`).
    public static func stopAll() {
        for marker in live.withLock({ Array($0.keys) }) { stop(marker: marker) }
        stopOrphans()
    }

    /// Makes this process the reaper of its orphaned descendants: a daemon that left its process
    /// group and cleared its environment still ends up here, where `stopOrphans` finds it.
    public static func adoptOrphans() { adopting.store(ringside_become_subreaper() == 0, ordering: .relaxed) }

    /// Whether this process adopts orphans (`ringside run`; a test process does not, and its other
    /// children — another test's — are no scenario's).
    private static let adopting = Atomic<Bool>(false)

    /// Kills every child process still running once no scenario runs (orphans adopted by
    /// `adoptOrphans`, and their groups), and reaps them.
    public static func stopOrphans() {
        for _ in 0..<3 {
            let children = childrenOfThisProcess()
            if children.isEmpty { return }
            for pid in children {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
            }
            usleep(50_000)
            while waitpid(-1, nil, WNOHANG) > 0 {}
        }
    }

    /// Live processes whose parent is this process.
    static func childrenOfThisProcess() -> [pid_t] {
        let me = getpid()
        return liveProcesses().filter { $0.parent == me }.map(\.pid)
    }

    /// Whether a process of one of these trees still runs (not a zombie): one whose environment
    /// carries a tree's marker, or one still in a tree's process group. Either alone misses one: a
    /// process may clear its environment or leave the group, and one in the middle of `execve` has
    /// no environment to read for a moment (a provider's `( sleep 0.4; curl … ) &` was once taken
    /// for quiet as its subshell turned into curl, and the duplicate it then sent went unjudged).
    /// All trees in one reading of `/proc`: a scenario polls every command it started, and a
    /// reading per tree read all of `/proc` again for each.
    /// An orphan this process adopted (`adoptOrphans`) outside every tree's group — a daemon that
    /// left its group and cleared its environment, `setsid env -i … &` — is a command's too: it
    /// was started by one, and nothing else here starts processes.
    static func isAnyRunning(markers: [String]) -> Bool {
        guard !markers.isEmpty else { return false }
        let (groups, known) = live.withLock { table in
            (Set(markers.compactMap { table[$0] }.filter { $0 != 0 }), Set(table.values.filter { $0 != 0 }))
        }
        let needles = markers.map(needle)
        let me = getpid()
        let adopting = adopting.load(ordering: .relaxed)
        return liveProcesses().contains { process in
            groups.contains(process.group)
                || (adopting && process.parent == me && !known.contains(process.group))
                || carries(process.pid, anyOf: needles)
        }
    }

    /// The process groups with a live member (not a zombie).
    static func groupsWithLiveMembers() -> Set<pid_t> { Set(liveProcesses().map(\.group)) }

    /// Live processes (not zombies) whose environment carries `marker`.
    static func find(_ marker: String) -> [pid_t] {
        let needle = needle(marker)
        return liveProcesses().filter { carries($0.pid, anyOf: [needle]) }.map(\.pid)
    }

    /// A live process as `/proc/<pid>/stat` shows it.
    private struct LiveProcess {
        let pid: pid_t
        let parent: pid_t
        let group: pid_t
    }

    /// Every process but this one, zombies left out.
    private static func liveProcesses() -> [LiveProcess] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> LiveProcess? in
            guard let pid = pid_t(entry), pid != me,
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the command's name: state, parent, process group.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let parent = pid_t(fields[1]), let group = pid_t(fields[2]) else { return nil }
            // A zombie is gone — unless only its main thread ended (`pthread_exit`) and others run on.
            if fields[0] == "Z",
                ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/task"))?.count ?? 0) <= 1
            {
                return nil
            }
            return LiveProcess(pid: pid, parent: parent, group: group)
        }
    }

    /// The environment entry that marks a tree's processes.
    private static func needle(_ marker: String) -> [UInt8] { Array("\(variable)=\(marker)".utf8) }

    /// Whether process `pid`'s environment holds one of `needles` (read once for all of them).
    private static func carries(_ pid: pid_t, anyOf needles: [[UInt8]]) -> Bool {
        guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
        return [UInt8](environ).split(separator: 0).contains { entry in needles.contains { entry.elementsEqual($0) } }
    }
}

/// The process trees one scenario started; stopped together at its end.
final class Children {
    private var markers: [String] = []
    /// The shells whose groups may still have members, by marker: each is reaped once its group is
    /// empty (so that a scenario of many commands does not keep a zombie each to its end).
    private var leaders: [String: ChildProcess] = [:]

    /// Starts a command as a tree of its own.
    func start(_ command: String, environment: [String: String], output: FileHandle) throws -> (
        child: ChildProcess, marker: String
    ) {
        forgetEmptyGroups()
        let marker = UUID().uuidString
        let child = try ChildProcess(command: command, environment: environment, marker: marker, output: output)
        ProcessTree.register(marker: marker, group: child.pid)
        markers.append(marker)
        leaders[marker] = child
        return (child, marker)
    }

    /// Reaps each shell that has ended and whose group has no live member left: nothing can join
    /// an empty group, so its number is let go only once nothing of the tree runs in it.
    private func forgetEmptyGroups() {
        let ended = leaders.filter { $0.value.status != nil }
        guard !ended.isEmpty else { return }
        let groups = ProcessTree.groupsWithLiveMembers()
        for (marker, shell) in ended where !groups.contains(shell.pid) {
            ProcessTree.forgetGroup(marker: marker, leader: shell.pid)
            leaders[marker] = nil
        }
    }

    func stopAll() {
        for marker in markers { ProcessTree.stop(marker: marker) }
        markers = []
        leaders = [:]
    }

    /// Whether a process of some tree (but `except`'s) still runs: a command that backgrounded curl.
    func anyRunning(except: String? = nil) -> Bool {
        ProcessTree.isAnyRunning(markers: markers.filter { $0 != except })
    }
}

/// A shell command run to its end with extra environment; one that hangs is stopped and fails its
/// step, so that it cannot hang the suite. What it leaves in the background runs on until the
/// scenario ends.
enum ShellCommand {
    /// How many lines of a command's output a failure shows.
    static let keptLines = 20

    struct Run {
        var status: Int32
        /// The last lines of its standard output and error.
        var output: [String]
    }

    static func run(
        _ command: String, environment: [String: String], timeout seconds: Double, children: Children
    ) throws -> Run {
        let log = try OutputFile()
        let (child, marker) = try children.start(command, environment: environment, output: log.handle)
        guard child.wait(until: Date().addingTimeInterval(seconds)) else {
            ProcessTree.stop(marker: marker)
            _ = child.wait(until: Date().addingTimeInterval(2))
            throw StepFailure(
                expected: "the command to finish", happened: "it ran for \(Int(seconds)) s and was stopped: \(command)",
                output: log.tail())
        }
        return Run(status: child.status ?? -1, output: log.tail())
    }
}
