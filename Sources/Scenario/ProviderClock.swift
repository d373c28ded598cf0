import Foundation

/// The provider's clock follows the scenario's (issue 45, C13): `advance: 2h` moves the fake
/// APNs's clock, and a provider that signs its JWT from its own clock (aioapns re-signs every 30
/// minutes of *real* time) would otherwise be judged on an artefact. In a scenario that advances
/// the clock, an `exec` or `http` provider runs under libfaketime (Debian's `faketime`), which reads its offset from a file the runner
/// rewrites at every `advance`. Its monotonic clock jumps with it: libfaketime 0.9.10 (Debian 12)
/// fails every sleep (`EINVAL` from `clock_nanosleep`) when told to leave the monotonic clock alone,
/// so a provider's timer due within the jump fires at once, as after a suspend. A static binary does not load the library; a machine without it
/// cannot move a provider's clock at all, and then a requirement that moves the clock is not
/// applicable, and says why.
final class ProviderClock {
    /// Where Debian puts libfaketime, by architecture.
    static let library: String? = {
        let candidates = ["x86_64-linux-gnu", "aarch64-linux-gnu", "arm-linux-gnueabihf", "i386-linux-gnu"].map {
            "/usr/lib/\($0)/faketime/libfaketime.so.1"
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }()

    static let missing =
        "the scenario moves the clock (advance), and this machine cannot move the provider's: libfaketime is not installed (apt-get install faketime)"

    private let folder: String
    private let file: String

    init?() {
        guard Self.library != nil else { return nil }
        folder = NSTemporaryDirectory() + "ringside-clock-\(UUID().uuidString)"
        file = folder + "/offset"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try "+0\n".write(toFile: file, atomically: true, encoding: .utf8)
        } catch {
            return nil
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// What a provider's processes need in their environment: the library, and the file it reads
    /// again at every call.
    func environment(adding to: [String: String]) -> [String: String] {
        var environment = to
        guard let library = Self.library else { return environment }
        let preload = ProcessInfo.processInfo.environment["LD_PRELOAD"].map { $0 + ":" } ?? ""
        environment["LD_PRELOAD"] = preload + library
        environment["FAKETIME_TIMESTAMP_FILE"] = file
        environment["FAKETIME_NO_CACHE"] = "1"
        return environment
    }

    /// The scenario's clock runs `offset` seconds ahead of the wall clock: so does the provider's.
    /// Written whole (a rename in the runner's own folder): a provider reading it mid-write would
    /// see no time at all.
    func runsAhead(by offset: Double) {
        try? "+\(Int(offset.rounded()))\n".write(toFile: file, atomically: true, encoding: .utf8)
    }
}
