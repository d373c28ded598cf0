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

    static let defaultKeyId = "RINGKEY001"
    static let defaultTeamId = "RINGTEAM01"
    static let defaultTopic = "com.ringside.testapp"
}
