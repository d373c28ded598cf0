import APNs
import Foundation
import Scenario

/// `ringside token`: prints a provider token (JWT) signed with a test key, for curl and scripts.
enum TokenCommand {
    static let help = """
        Usage: ringside token [--key-id ID] [--team-id ID] [--key FILE] [--age SECONDS] [--der]

        Prints a JWT for 'authorization: bearer <JWT>', signed with ES256 by a test key
        (default RINGKEY001 of team RINGTEAM01 from certs-test/). --age backdates iat (3601 makes an
        expired token); --der signs with a DER signature instead of raw R||S (APNs accepts both).
        """

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: "token")
        if arguments.flag("--help") || arguments.flag("-h") {
            Output.out(help)
            return ExitCode.success
        }
        return runCommand {
            let keyId = try arguments.value("--key-id") ?? ProviderContract.keyId
            let teamId = try arguments.value("--team-id") ?? ProviderContract.teamId
            let certs = try arguments.value("--certs")
            let keyFile = try arguments.value("--key")
            let age = try arguments.number("--age", Int64.self) ?? 0
            let der = arguments.flag("--der")
            try arguments.finish()
            guard let path = keyFile ?? TestCredentials.directory(certs).map({ "\($0)/AuthKey_\(keyId).p8" }) else {
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
