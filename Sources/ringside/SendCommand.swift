import APNs
import Foundation
import Provider
import Scenario

/// `ringside send`: one push, and the exchange annotated header by header.
enum SendCommand {
    /// The options, declared once: the table below and every read name them (a misspelt one does not compile).
    enum Option {
        static let url = OptionSpec.text("--url", "URL", "APNs (default https://127.0.0.1:2197; http:// for h2c).")
        static let ca = OptionSpec.text("--ca", "FILE", "CA of the server certificate (default certs-test/ca.pem).")
        static let deviceToken = OptionSpec.text(
            "--device-token", "HEX", "The device token (default 64 hex digits of ab).")
        static let topic = OptionSpec.text(
            "--topic", "TOPIC", "apns-topic (default com.ringside.testapp.voip); \"none\" leaves it out.")
        static let pushType = OptionSpec.text(
            "--push-type", "TYPE", "apns-push-type (default voip); \"none\" leaves it out.")
        static let priority = OptionSpec.text(
            "--priority", "N", "apns-priority (default 10); \"none\" leaves it out; sent as given, right or wrong.")
        static let expiration = OptionSpec.text(
            "--expiration", "N",
            "apns-expiration (default 0); \"none\" leaves it out; sent as given, right or wrong.")
        static let apnsId = OptionSpec.text("--apns-id", "UUID", "apns-id (default: a new one).")
        static let collapseId = OptionSpec.text("--collapse-id", "ID", "apns-collapse-id.")
        static let header = OptionSpec.text("--header", "'NAME: VALUE'", "Any other header (repeatable).")
        static let payload = OptionSpec.text("--payload", "JSON", "The body (default a call: callUUID and handle).")
        static let method = OptionSpec.text("--method", "METHOD", "The HTTP method (default POST).")
        static let auth = OptionSpec.choice(
            "--auth", "MODE", ["token", "certificate"], "token (default) or certificate.")
        static let key = OptionSpec.text(
            "--key", "FILE", "Token auth: the .p8 key (default the test key AuthKey_RINGKEY001.p8).")
        static let keyId = OptionSpec.text("--key-id", "ID", "Token auth: the key's id (default RINGKEY001).")
        static let teamId = OptionSpec.text("--team-id", "ID", "Token auth: the team (default RINGTEAM01).")
        static let cert = OptionSpec.text(
            "--cert", "FILE", "Certificate auth: the client certificate (default certs-test/client-voip.pem).")
        static let certKey = OptionSpec.text(
            "--cert-key", "FILE", "Certificate auth: its key (default certs-test/client-voip.key).")
        static let curl = OptionSpec.flag("--curl", "Print the equivalent curl command instead of sending.")
    }

    static let spec = CommandSpec(
        "send", abstract: "Send one push and print the exchange, annotated.",
        about: """
            Sends one push (by default a VoIP push exactly right, to a local `ringside serve` with the test
            credentials) and prints the exchange: each request header, what it means and whether it is
            right for a VoIP push; the answer, what it means and what a provider should do next.
            """,
        options: [
            Option.url, Option.ca, Option.deviceToken, Option.topic, Option.pushType, Option.priority,
            Option.expiration, Option.apnsId, Option.collapseId, Option.header, Option.payload, Option.method,
            Option.auth, Option.key, Option.keyId, Option.teamId, Option.cert, Option.certKey, OptionSpec.certs,
            Option.curl,
        ],
        exitCodes: """
            Exit codes: 0 accepted (200), 1 refused (APNs answered an error), 3 no answer (connection or TLS
            failure), 64 bad arguments.
            """)

    static func run(_ raw: [String]) -> Int32 {
        var arguments = Arguments(raw, command: spec)
        if arguments.help() {
            Output.out(spec.help)
            return ExitCode.success
        }
        return runCommand {
            let certs = try TestCredentials.directory(try arguments.value(OptionSpec.certs)) ?? "certs-test"
            let url = try arguments.value(Option.url) ?? "https://127.0.0.1:2197"
            let ca = try arguments.value(Option.ca) ?? "\(certs)/ca.pem"
            let token = try arguments.value(Option.deviceToken) ?? String(repeating: "ab", count: 32)
            var headers: [(name: String, value: String)] = []
            func header(_ option: OptionSpec, _ name: String, _ fallback: String?) throws(UsageError) {
                let value = try arguments.value(option) ?? fallback
                if let value, value != "none" { headers.append((name, value)) }
            }
            try header(Option.topic, "apns-topic", ProviderContract.voipTopic)
            try header(Option.pushType, "apns-push-type", "voip")
            try header(Option.priority, "apns-priority", "10")
            try header(Option.expiration, "apns-expiration", "0")
            try header(Option.apnsId, "apns-id", UUID().uuidString.lowercased())
            try header(Option.collapseId, "apns-collapse-id", nil)
            for extra in try arguments.values(Option.header) {
                guard let colon = extra.firstIndex(of: ":") else {
                    throw UsageError("--header takes 'NAME: VALUE', got <\(extra)>")
                }
                headers.append(
                    (
                        extra[..<colon].lowercased(),
                        extra[extra.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    ))
            }
            let payload =
                try arguments.value(Option.payload)
                ?? #"{"aps":{},"callUUID":"\#(UUID().uuidString.lowercased())","handle":"alice"}"#
            let method = try arguments.value(Option.method) ?? "POST"
            let auth = try arguments.value(Option.auth) ?? "token"
            let keyId = try arguments.value(Option.keyId)
            let key = try arguments.value(Option.key)
            let teamId = try arguments.value(Option.teamId)
            let cert = try arguments.value(Option.cert)
            let certKey = try arguments.value(Option.certKey)
            let printCurl = arguments.flag(Option.curl)
            try arguments.finish()
            let authentication: ClientConfiguration.Authentication
            if auth == "token" {
                guard cert == nil, certKey == nil else {
                    throw UsageError("--cert and --cert-key are for --auth certificate")
                }
                let keyId = keyId ?? ProviderContract.keyId
                authentication = .token(
                    keyFile: key ?? "\(certs)/AuthKey_\(keyId).p8", keyId: keyId,
                    teamId: teamId ?? ProviderContract.teamId)
            } else {
                guard keyId == nil, key == nil, teamId == nil else {
                    throw UsageError("--key, --key-id and --team-id are for --auth token")
                }
                authentication = .certificate(
                    certificateFile: cert ?? "\(certs)/client-voip.pem", keyFile: certKey ?? "\(certs)/client-voip.key")
            }
            var push = OutgoingPush(deviceToken: token, payload: Array(payload.utf8), headers: headers)
            push.method = method
            let configuration = ClientConfiguration(
                url: url, caFile: url.hasPrefix("https") ? ca : nil, authentication: authentication)
            if printCurl {
                Output.out(curlCommand(push, configuration))
                return ExitCode.success
            }
            return try send(push, configuration)
        }
    }

    static func send(_ push: OutgoingPush, _ configuration: ClientConfiguration) throws -> Int32 {
        let (lines, answer) = try exchange(push, configuration)
        Output.out(lines.joined(separator: "\n"))
        if answer.status == 0 { return ExitCode.cannotProceed }
        return answer.status == 200 ? ExitCode.success : ExitCode.expectationFailed
    }

    /// Sends the push and tells the exchange: each header with what it means, the answer, what it
    /// means and what a provider does next (what `send` prints, and the console shows).
    static func exchange(_ push: OutgoingPush, _ configuration: ClientConfiguration) throws
        -> (lines: [String], answer: PushAnswer)
    {
        let client = try APNsClient(configuration: configuration)
        var lines: [String] = []
        let authentication: String
        switch configuration.authentication {
        case .token(_, let keyId, let teamId): authentication = "token authentication (key \(keyId), team \(teamId))"
        case .certificate(let file, _): authentication = "certificate authentication (\(file))"
        }
        lines.append("→ \(push.method) /3/device/\(push.deviceToken)")
        lines.append("  to \(configuration.url), HTTP/2, \(authentication)")
        lines.append(contentsOf: annotate(push, tokenAuth: authentication.hasPrefix("token")))
        lines.append("  body: \(push.payload.count) bytes: \(String(decoding: push.payload, as: UTF8.self))")
        let answer = try client.send([push])[0]
        lines.append("")
        if answer.status == 0 {
            lines.append("← no answer: \(answer.transportError ?? "the connection failed")")
            lines.append(
                "  What to do: check the URL, the CA and the credentials; a refused handshake is logged by `ringside serve`."
            )
            return (lines, answer)
        }
        lines.append("← \(answer.status)\(answer.reasonText.map { " \($0)" } ?? "")")
        for (name, value) in answer.headers { lines.append("  \(name): \(value)") }
        if let reason = answer.reason {
            lines.append("  What it means: \(reason.explanation)")
            lines.append("  What to do:    \(reason.whatToDo)")
            if let timestamp = answer.timestamp {
                lines.append(
                    "  timestamp \(timestamp): the token has been invalid since \(Date(timeIntervalSince1970: Double(timestamp) / 1000))"
                )
            }
        } else if answer.status == 200 {
            lines.append(
                "  What it means: APNs accepted the push. It is not proof of delivery: the phone may be offline, and the app must still report the call."
            )
        }
        let step = ResponsePolicy().next(status: answer.status, reason: answer.reason, attempt: 1, jitter: 0.5)
        lines.append("  Next step for a provider: \(describe(step))")
        return (lines, answer)
    }

    /// Each header, what it means, and whether it is right for a VoIP push.
    static func annotate(_ push: OutgoingPush, tokenAuth: Bool) -> [String] {
        var lines: [String] = []
        var present = Set<String>()
        for (name, value) in push.headers {
            present.insert(name)
            guard let entry = HeaderVocabulary.entry(name) else {
                lines.append("  · \(name): \(value) — not an APNs header; APNs ignores it")
                continue
            }
            if let problem = entry.judge(value) {
                lines.append("  ✗ \(name): \(value) — \(entry.meaning). \(problem)")
            } else {
                lines.append("  ✓ \(name): \(value) — \(entry.meaning)")
            }
        }
        if tokenAuth {
            lines.append(
                "  ✓ authorization: bearer <JWT, signature not shown> — \(HeaderVocabulary.entry("authorization")!.meaning)"
            )
        }
        for entry in HeaderVocabulary.entries
        where !entry.name.hasPrefix(":") && entry.name != "authorization"
            && entry.name != "apns-collapse-id" && !present.contains(entry.name)
        {
            lines.append("  · \(entry.name) absent — \(entry.meaning); for a VoIP push: \(entry.forVoIP)")
        }
        return lines
    }

    static func describe(_ step: NextStep) -> String {
        switch step {
        case .delivered: return "nothing; wait for the app to report the call"
        case .forgetToken(let reason): return "forget this token (\(reason.wire)) and never push to it again"
        case .fix(let reason):
            return "fix the request or the credentials (\(reason.wire)); retrying unchanged gets the same answer"
        case .refreshTokenAndRetry: return "sign a new JWT and retry once"
        case .retry(let delay):
            return "retry this token after about \(Int(delay.rounded(.up))) s, backing off; keep sending to others"
        case .reconnectAndRetry(let delay):
            return delay == 0
                ? "open a new connection and send again" : String(format: "open a new connection in %.1f s", delay)
        case .giveUp: return "give up and report the failure"
        }
    }

    /// The same request as a curl command line (JWT made fresh with `ringside token`).
    static func curlCommand(_ push: OutgoingPush, _ configuration: ClientConfiguration) -> String {
        func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        var parts = ["curl", "-v", configuration.url.hasPrefix("https") ? "--http2" : "--http2-prior-knowledge"]
        if let ca = configuration.caFile { parts += ["--cacert", quote(ca)] }
        switch configuration.authentication {
        case .token(let keyFile, let keyId, let teamId):
            parts += [
                "-H",
                "\"authorization: bearer $(ringside token --key \(quote(keyFile)) --key-id \(quote(keyId)) --team-id \(quote(teamId)))\"",
            ]
        case .certificate(let certificate, let key):
            parts += ["--cert", quote(certificate), "--key", quote(key)]
        }
        for (name, value) in push.headers { parts += ["-H", quote("\(name): \(value)")] }
        if push.method != "POST" { parts += ["-X", push.method] }
        parts += ["--data-binary", quote(String(decoding: push.payload, as: UTF8.self))]
        parts.append(quote("\(configuration.url)/3/device/\(push.deviceToken)"))
        return parts.joined(separator: " ")
    }
}
