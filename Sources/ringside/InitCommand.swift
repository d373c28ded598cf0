import Foundation
import MockAPNs

/// `ringside init [DIR]`: writes a starter folder into a provider's repository — a scenario per
/// adapter with its placeholders explained, a stand-in service for the `http` one, and CI snippets
/// (the same recipes as docs/ci.md). Both scenarios pass as written; the user swaps in their own
/// command.
enum InitCommand {
    static let spec = CommandSpec(
        "init", abstract: "Write a starter folder of scenarios and CI jobs into a provider's repository.",
        operands: "[DIR]",
        about: """
            Writes a starter folder (default ./ringside) for a push provider's repository:
              exec-curl.ring        a provider that is one curl command per push (the exec adapter)
              http-service.ring     a long-running service driven over HTTP (the http adapter)
              provider.ring         your provider, for the bundled library's requirements:
                                    ringside run --library --provider-file ringside/provider.ring
              example-service.py    the stand-in service both start (one HTTP/2 connection; needs python3-h2);
                                    it passes every requirement; replace it with yours
              ci/github-actions.yml and ci/gitlab-ci.yml   CI jobs that run the folder (docs/ci.md)
              README.md             what each file is, and the next commands to run
            Refuses a folder that is a symbolic link or holds anything, and writes the whole folder or
            nothing (into a new folder beside it, renamed into place). Then: 'ringside run DIR'.
            """,
        exitCodes: "Exit codes: 0 written, 3 a file exists or cannot be written, 64 bad arguments.")

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: spec)
        if arguments.help() {
            Output.out(spec.help)
            return ExitCode.success
        }
        return runCommand {
            let paths = try arguments.remaining()
            guard paths.count <= 1 else { throw UsageError("init takes one folder at most, got \(paths.count)") }
            let folder = paths.first ?? "ringside"
            guard !folder.isEmpty, !folder.hasPrefix("-") else {
                throw UsageError("init takes a folder name, got <\(folder)>; see 'ringside init --help'")
            }
            let manager = FileManager.default
            // Only where asked: not through a link, not over a folder that holds anything, and never
            // half-written — the files go to a new folder beside it, renamed into place at the end.
            do { try OutputFiles.refuseLink(folder) } catch {
                throw InitError(description: "\(FileErrorText.describe(error)); nothing was written")
            }
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: folder, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    throw InitError(description: "\(folder) is a file, not a folder; nothing was written")
                }
                let inside = (try? manager.contentsOfDirectory(atPath: folder)) ?? []
                guard inside.isEmpty else {
                    throw InitError(
                        description:
                            "\(folder) exists and is not empty (\(inside.sorted().prefix(3).joined(separator: ", "))); nothing was written"
                    )
                }
            }
            let staging = OutputFiles.folder(of: folder) + "/.ringside-init-\(UUID().uuidString)"
            do {
                for file in StarterFiles.all {
                    let path = "\(staging)/\(file.path)"
                    try manager.createDirectory(
                        atPath: OutputFiles.folder(of: path), withIntermediateDirectories: true)
                    try OutputFiles.write(file.text + "\n", to: path)
                }
                // An empty folder (checked above) gives way to the written one.
                if manager.fileExists(atPath: folder) { try manager.removeItem(atPath: folder) }
                guard rename(staging, folder) == 0 else {
                    throw InitError(description: "cannot create \(folder): \(String(cString: strerror(errno)))")
                }
            } catch {
                try? manager.removeItem(atPath: staging)
                if let error = error as? InitError { throw error }
                throw InitError(
                    description:
                        "cannot write the starter folder \(folder): \(FileErrorText.describe(error)); nothing was written"
                )
            }
            for file in StarterFiles.all { Output.out("wrote \(folder)/\(file.path)") }
            Output.out("next: ringside run \(folder)")
            return ExitCode.success
        }
    }

    struct InitError: Error, CustomStringConvertible {
        let description: String
    }
}
