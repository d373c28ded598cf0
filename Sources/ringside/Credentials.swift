import Foundation

/// Finds `certs-test/`: `--certs`, then `$RINGSIDE_CERTS`, then `./certs-test`, then the one beside
/// the binary (a release tarball's `bin/../certs-test`), then the checkout this binary was built from.
enum TestCredentials {
    static func directory(_ explicit: String?) -> String? {
        let candidates: [String?] = [
            explicit,
            ProcessInfo.processInfo.environment["RINGSIDE_CERTS"],
            FileManager.default.currentDirectoryPath + "/certs-test",
            besideBinary,
            checkout,
        ]
        for case let candidate? in candidates
        where FileManager.default.fileExists(atPath: candidate + "/keys.json") {
            return URL(fileURLWithPath: candidate).standardizedFileURL.path
        }
        return nil
    }

    /// The checkout a debug build was built from; a release never looks there (scripts/package.sh).
    private static var checkout: String? {
        #if DEBUG
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("certs-test").path
        #else
            nil
        #endif
    }

    /// `certs-test/` next to the binary's folder, as a release lays it out (scripts/package.sh).
    private static var besideBinary: String? {
        guard let binary = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        return URL(fileURLWithPath: binary).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("certs-test").path
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
