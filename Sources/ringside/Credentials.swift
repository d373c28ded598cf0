import Foundation

/// Finds `certs-test/`: `--certs`, then `$RINGSIDE_CERTS`, then `./certs-test`, then the checkout this
/// binary was built from.
enum TestCredentials {
    static func directory(_ explicit: String?) -> String? {
        let candidates: [String?] = [
            explicit,
            ProcessInfo.processInfo.environment["RINGSIDE_CERTS"],
            FileManager.default.currentDirectoryPath + "/certs-test",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("certs-test").path,
        ]
        for case let candidate? in candidates
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
