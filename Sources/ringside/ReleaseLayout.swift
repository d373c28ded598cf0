import Foundation

/// Where a release keeps what it ships beside its binary, found from the binary's own path
/// (`/proc/self/exe`, symbolic links resolved), so it works from any working folder:
/// the tarball's `<prefix>/bin/ringside` with `<prefix>/NAME`, and an installed package's
/// `/usr/bin/ringside` with `/usr/share/ringside/NAME` (the .deb; scripts/package.sh).
enum ReleaseLayout {
    /// The places to look for `name` (`certs-test`, `scenarios`), the tarball's first.
    static func candidates(_ name: String) -> [String] {
        guard let binary = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return []
        }
        let prefix = URL(fileURLWithPath: binary).deletingLastPathComponent().deletingLastPathComponent()
        return [
            prefix.appendingPathComponent(name).path,
            prefix.appendingPathComponent("share/ringside").appendingPathComponent(name).path,
        ]
    }

    /// `name` in the checkout a debug build was built from; a release never looks there.
    static func checkout(_ name: String) -> [String] {
        #if DEBUG
            [
                URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent(name).path
            ]
        #else
            []
        #endif
    }
}

/// The bundled scenario library (`run --library`, `coverage --library`): the `scenarios/` the
/// release put beside the binary (ReleaseLayout), then the checkout a debug build was built from.
enum ScenarioLibrary {
    static var directory: String? {
        for candidate in ReleaseLayout.candidates("scenarios") + ReleaseLayout.checkout("scenarios") {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue {
                return URL(fileURLWithPath: candidate).standardizedFileURL.path
            }
        }
        return nil
    }

    /// The library's folder, or an error that says where it was looked for (exit code 3).
    static func required() throws -> String {
        guard let directory else { throw Missing() }
        return directory
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            let places = ReleaseLayout.candidates("scenarios")
            return "cannot find the bundled scenario library (looked in \(places.joined(separator: " and "))); "
                + "name its folder instead of --library"
        }
    }
}
