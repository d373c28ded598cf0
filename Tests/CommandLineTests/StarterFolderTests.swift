import Foundation
import TestSupport
import Testing

/// `ringside init` and docs/ci.md: the starter folder's scenarios pass as written and fail against a
/// provider that gets it wrong; the CI recipes are the folder's and their `ringside` commands pass.
@Suite(.serialized) struct StarterFolderTests {
    static let binary = Paths.ringside

    /// A fresh folder with `ringside init`'s files in `ringside/`.
    static func initialized() throws -> String {
        let folder = NSTemporaryDirectory() + "ringside-init-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try run(binary, ["init"], directory: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wrote ringside/exec-curl.ring"))
        return folder
    }

    static func runScenario(_ folder: String, _ name: String) throws -> CommandResult {
        try run(binary, ["run", "--certs", Paths.certs, "ringside/\(name)"], directory: folder)
    }

    static func edit(_ path: String, _ old: String, _ new: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(old), "\(path) has no <\(old)>")
        try text.replacingOccurrences(of: old, with: new).write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Issue 46: `{dir}` reached the shell as text, so a checkout in a folder named like a command
    /// ran it when the provider file started the stand-in.
    @Test("init in a folder named like a shell command runs its stand-in, and runs nothing else")
    func hostileFolderName() throws {
        let outer = NSTemporaryDirectory() + "ringside-init-\(UUID().uuidString)"
        let folder = outer + "/repo $(touch MARK) `touch MARK2` it's"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outer) }
        #expect(try run(Self.binary, ["init"], directory: folder).status == 0)
        let result = try run(
            Self.binary,
            [
                "run", "--certs", Paths.certs, "--provider-file", folder + "/ringside/provider.ring",
                Paths.scenario("01-a-call-rings.ring"),
            ], directory: outer)
        #expect(result.status == 0, "\(result.stdout.suffix(600))")
        let marks = try FileManager.default.subpathsOfDirectory(atPath: outer).filter {
            $0.hasSuffix("MARK") || $0.hasSuffix("MARK2")
        }
        #expect(marks.isEmpty, "the folder's name ran as a command: \(marks)")
    }

    /// Found by a new user: `check` of init's provider.ring said "a scenario needs <scenario>".
    @Test("check takes a provider file as --provider-file reads it")
    func checkProviderFile() throws {
        let folder = try Self.initialized()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let good = try run(Self.binary, ["check", "ringside/provider.ring"], directory: folder)
        #expect(good.status == 0, "\(good.stderr)")
        try Self.edit(folder + "/ringside/provider.ring", "settles-within:", "settles-whithin:")
        let bad = try run(Self.binary, ["check", "ringside/provider.ring"], directory: folder)
        #expect(bad.status == 2 && bad.stderr.contains("settles-whithin"), "\(bad.stderr)")
    }

    @Test("init writes scenarios that pass as written, and refuses to overwrite them")
    func starterScenariosPass() throws {
        let folder = try Self.initialized()
        let result = try run(Self.binary, ["run", "--certs", Paths.certs, "ringside"], directory: folder)
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("scenarios: 2 passed, 0 failed"), "\(result.stdout)")
        let again = try run(Self.binary, ["init"], directory: folder)
        #expect(again.status == 3)
        #expect(again.stderr.contains("is not empty"), "\(again.stderr)")
        #expect(again.stderr.contains("nothing was written"), "\(again.stderr)")
    }

    @Test("The starter scenarios fail against a provider that gets it wrong")
    func starterScenariosCanFail() throws {
        let folder = try Self.initialized()
        // The stand-in service keeps a token after its 410 (incident 2).
        try Self.edit(
            folder + "/ringside/example-service.py", "TOKENS.pop(token, None)  # dead: never push this token again",
            "pass  #")
        let service = try Self.runScenario(folder, "http-service.ring")
        #expect(service.status == 1, "\(service.stdout)")
        #expect(service.stdout.contains("http-service.ring:33:5"), "\(service.stdout)")
        // The curl one-liner pushes to a token no phone has.
        try Self.edit(folder + "/ringside/exec-curl.ring", "{url}/3/device/{token}", "{url}/3/device/00{token}")
        let curl = try Self.runScenario(folder, "exec-curl.ring")
        #expect(curl.status == 1, "\(curl.stdout)")
    }

    /// The library's requirements that apply to a provider with token authentication.
    static let requirements = Paths.bundled.filter {
        let text = (try? String(contentsOfFile: Paths.root + "/scenarios/" + $0, encoding: .utf8)) ?? ""
        return (!text.contains("\nprovider:") || text.contains("builtin: reference"))
            && !text.contains("auth: certificate")
    }.count

    @Test(
        "The starter service passes the requirements, and each of its classic mistakes fails the ones about it",
        arguments: [
            ("expiration-hour", ["02-expiration-zero-no-ghost.ring", "14-offline-briefly.ring"], []),
            // A connection per push never meets scenario 22's sick connection: not applicable, saying so.
            ("connection-per-push", ["73-keeps-its-connection.ring"], ["22-sick-connection.ring"]),
        ])
    func starterMistakesFail(mistake: String, failing: [String], notApplicable: [String]) throws {
        let folder = try Self.initialized()
        let files = failing + notApplicable + ["01-a-call-rings.ring"]
        let arguments = ["run", "--certs", Paths.certs, "--provider-file", "ringside/provider.ring"]
        let correct = try run(Self.binary, arguments + files.map(Paths.scenario), directory: folder)
        #expect(correct.status == 0, "\(correct.stdout)")
        let wrong = try run(
            "/usr/bin/env", ["STARTER_MISTAKE=\(mistake)", Self.binary] + arguments + files.map(Paths.scenario),
            directory: folder)
        #expect(wrong.status == 1, "\(wrong.stdout)")
        for name in failing { #expect(wrong.stdout.contains("✘ failed") && wrong.stdout.contains(name + ")")) }
        #expect(wrong.stdout.contains("requirements: 1 passed, \(failing.count) failed"), "\(wrong.stdout)")
        for name in notApplicable {
            #expect(
                wrong.stdout.contains("never met the fault")
                    && wrong.stdout.contains(name + "): skipped, not applicable"))
        }
    }

    /// The YAML blocks of docs/ci.md, in order.
    static func recipes() throws -> [String] {
        let markdown = try String(contentsOfFile: Paths.root + "/docs/ci.md", encoding: .utf8)
        return markdown.components(separatedBy: "```yaml\n").dropFirst().map {
            $0.components(separatedBy: "\n```")[0] + "\n"
        }
    }

    @Test("docs/ci.md's recipes are the files init writes, and every ringside command in them passes")
    func ciRecipesRun() throws {
        let folder = try Self.initialized()
        let recipes = try Self.recipes()
        #expect(recipes.count == 2)
        for (recipe, file) in zip(recipes, ["github-actions.yml", "gitlab-ci.yml"]) {
            #expect(recipe == (try String(contentsOfFile: folder + "/ringside/ci/" + file, encoding: .utf8)), "\(file)")
        }
        // What a CI job owes the machine it runs on (issue 46, point 7): a package list fetched before
        // installing from it, a tarball checked against its published hash before it is unpacked, the
        // team's own dependencies, and both reports kept.
        for recipe in recipes {
            let lines = recipe.split(separator: "\n").map(String.init)
            if let install = lines.firstIndex(where: { $0.contains("apt-get install") }) {
                #expect(lines[...install].contains { $0.contains("apt-get update") }, "\(lines[install])")
            }
            #expect(recipe.contains("sha256sum -c") && !recipe.contains("| tar"), "\(recipe)")
            #expect(recipe.contains("requirements.txt"), "\(recipe)")
            for line in lines where line.contains("ringside run ") {
                #expect(line.contains("--junit ") && line.contains("--report "), "\(line)")
            }
        }
        // GitHub's matrix and GitLab's parallel jobs, each shard in turn.
        var commands: [String] = []
        for recipe in recipes {
            for line in recipe.split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard let start = text.range(of: "ringside run ") else { continue }
                for shard in 1...2 {
                    commands.append(
                        String(text[start.lowerBound...]).replacingOccurrences(
                            of: "${{ matrix.shard }}", with: "\(shard)"
                        )
                        .replacingOccurrences(of: "$CI_NODE_INDEX", with: "\(shard)")
                        .replacingOccurrences(of: "$CI_NODE_TOTAL", with: "2"))
                }
            }
        }
        // The requirements job runs once per recipe (not per shard), on the checkout's library.
        var seen = Set<String>()
        commands = commands.filter { seen.insert($0).inserted }
        #expect(commands.count == 6, "\(commands)")
        for command in commands {
            let words = command.split(separator: " ").map(String.init)
            let result = try run(Self.binary, Array(words.dropFirst()) + ["--certs", Paths.certs], directory: folder)
            #expect(result.status == 0, "\(command)\n\(result.stdout)")
            let summary =
                command.contains("--provider-file")
                ? "requirements: \(Self.requirements) passed, 0 failed" : "scenarios: 1 passed, 0 failed"
            #expect(result.stdout.contains(summary), "\(command)\n\(result.stdout.suffix(2000))")
            for (index, word) in words.enumerated() where word == "--junit" || word == "--report" {
                #expect(FileManager.default.fileExists(atPath: folder + "/" + words[index + 1]), "\(command)")
            }
        }
    }
}
