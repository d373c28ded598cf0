import APNs
import Foundation

/// Finds `certs-test/`: `--certs`, then `$RINGSIDE_CERTS`, then `./certs-test`, then the one the
/// release put beside the binary (a tarball's `bin/../certs-test`, the .deb's
/// `/usr/bin/../share/ringside/certs-test`: ReleaseLayout), then the checkout a debug build was built from.
enum TestCredentials {
    /// What the user named is used or is an error (issue 46): a typo in a CI job's `--certs` must
    /// not run against other keys found elsewhere.
    static func directory(_ explicit: String?) throws -> String? {
        let named = [("--certs", explicit), ("RINGSIDE_CERTS", ProcessInfo.processInfo.environment["RINGSIDE_CERTS"])]
            .compactMap { name, path in path.map { (name, $0) } }
        if let (name, path) = named.first {
            guard FileManager.default.fileExists(atPath: path + "/keys.json") else {
                throw NotCredentials(
                    description:
                        "\(name) names <\(OutsideText.visible(path))>, which holds no test credentials (no keys.json); give the certs-test folder, or leave \(name) out to use the one found beside ringside"
                )
            }
            return URL(fileURLWithPath: path).standardizedFileURL.path
        }
        let candidates =
            [FileManager.default.currentDirectoryPath + "/certs-test"]
            + ReleaseLayout.candidates("certs-test") + ReleaseLayout.checkout("certs-test")
        for candidate in candidates
        where FileManager.default.fileExists(atPath: candidate + "/keys.json") {
            return URL(fileURLWithPath: candidate).standardizedFileURL.path
        }
        return nil
    }

    /// The directory, or an error that says how to give it (exit code 3 through `runCommand`).
    static func required(_ explicit: String?) throws -> String {
        guard let directory = try directory(explicit) else { throw MissingCertificates() }
        return directory
    }

    struct MissingCertificates: Error, CustomStringConvertible {
        let description = "cannot find certs-test/; pass --certs DIR"
    }

    struct NotCredentials: Error, CustomStringConvertible {
        let description: String
    }
}
