import Foundation

/// Finds `certs-test/`: `--certs`, then `$RINGSIDE_CERTS`, then `./certs-test`, then the one the
/// release put beside the binary (a tarball's `bin/../certs-test`, the .deb's
/// `/usr/bin/../share/ringside/certs-test`: ReleaseLayout), then the checkout a debug build was built from.
enum TestCredentials {
    static func directory(_ explicit: String?) -> String? {
        let given = [explicit, ProcessInfo.processInfo.environment["RINGSIDE_CERTS"]].compactMap { $0 }
        let candidates =
            given + [FileManager.default.currentDirectoryPath + "/certs-test"]
            + ReleaseLayout.candidates("certs-test") + ReleaseLayout.checkout("certs-test")
        for candidate in candidates
        where FileManager.default.fileExists(atPath: candidate + "/keys.json") {
            return URL(fileURLWithPath: candidate).standardizedFileURL.path
        }
        return nil
    }

    /// The directory, or an error that says how to give it (exit code 3 through `runCommand`).
    static func required(_ explicit: String?) throws -> String {
        guard let directory = directory(explicit) else { throw MissingCertificates() }
        return directory
    }

    struct MissingCertificates: Error, CustomStringConvertible {
        let description = "cannot find certs-test/; pass --certs DIR"
    }
}
