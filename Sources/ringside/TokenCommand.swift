import APNs
import Foundation
import Scenario

/// `ringside token`: prints a provider token (JWT) signed with a test key, for curl and scripts.
enum TokenCommand {
    /// The options, declared once: the table below and every read name them (a misspelt one does not compile).
    enum Option {
        static let keyId = OptionSpec.text("--key-id", "ID", "The key's id, the JWT's kid (default RINGKEY001).")
        static let teamId = OptionSpec.text("--team-id", "ID", "The team, the JWT's iss (default RINGTEAM01).")
        static let key = OptionSpec.text(
            "--key", "FILE", "The .p8 key to sign with (default: AuthKey_ID.p8 of the test credentials).")
        static let age = OptionSpec.number(
            "--age", "SECONDS", in: -315_360_000...315_360_000,
            "Backdates iat (3601 makes an expired token; a negative age dates it in the future).")
        static let der = OptionSpec.flag("--der", "Signs with a DER signature instead of raw R||S (APNs accepts both).")
    }

    static let spec = CommandSpec(
        "token", abstract: "Print a JWT signed with a test key, for curl.",
        about: """
            Prints a JWT for 'authorization: bearer <JWT>', signed with ES256 by a test key
            (default RINGKEY001 of team RINGTEAM01 from certs-test/).
            """,
        options: [Option.keyId, Option.teamId, Option.key, OptionSpec.certs, Option.age, Option.der],
        exitCodes: "Exit codes: 0 printed, 3 no key to sign with, 64 bad arguments.")

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: spec)
        if arguments.help() {
            Output.out(spec.help)
            return ExitCode.success
        }
        return runCommand {
            let keyId = try arguments.value(Option.keyId) ?? ProviderContract.keyId
            let teamId = try arguments.value(Option.teamId) ?? ProviderContract.teamId
            let certs = try arguments.value(OptionSpec.certs)
            let keyFile = try arguments.value(Option.key)
            let age = try arguments.number(Option.age, Int64.self) ?? 0
            let der = arguments.flag(Option.der)
            try arguments.finish()
            guard let path = try keyFile ?? TestCredentials.directory(certs).map({ "\($0)/AuthKey_\(keyId).p8" }) else {
                Output.error("error: cannot find certs-test/; pass --key FILE")
                return ExitCode.cannotProceed
            }
            let key = try ES256Key(pem: String(contentsOfFile: path, encoding: .utf8))
            let iat = Int64(Date().timeIntervalSince1970) - age
            Output.out(try ProviderToken.sign(keyId: keyId, teamId: teamId, issuedAt: iat, key: key, derSignature: der))
            return ExitCode.success
        }
    }
}
