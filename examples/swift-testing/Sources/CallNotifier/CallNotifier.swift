import Foundation

/// A tiny VoIP push provider: it keeps each user's PushKit tokens and rings them when a call comes.
/// It does what Apple asks of a provider: one JWT reused for 50 minutes, `apns-push-type: voip`,
/// priority 10, expiration 0 (a late call is worse than none), a token forgotten after 410, and
/// 429/5xx answers retried with back-off. It signs with the `openssl` CLI and sends with `curl`,
/// so it runs wherever those do.
public actor CallNotifier {
    /// Where APNs is and how to authenticate: in tests, Ringside's contract.
    public struct Settings: Sendable {
        public var url: String
        public var caFile: String?
        public var topic: String
        public var keyFile: String
        public var keyId: String
        public var teamId: String
        /// How many times a 429 or 5xx answer is retried.
        public var retries = 3
        /// The first back-off, doubled on each retry.
        public var backOff = 0.2

        public init(url: String, caFile: String?, topic: String, keyFile: String, keyId: String, teamId: String) {
            self.url = url
            self.caFile = caFile
            self.topic = topic
            self.keyFile = keyFile
            self.keyId = keyId
            self.teamId = teamId
        }
    }

    /// What APNs answered for one token.
    public struct Delivery: Sendable, Equatable {
        public var token: String
        public var status: Int
        public var reason: String?
        /// How many times it was sent (1 + retries).
        public var attempts: Int
    }

    public let settings: Settings
    private var tokens: [String: Set<String>] = [:]
    private var jwt: (value: String, issued: Date)?

    public init(settings: Settings) { self.settings = settings }

    public func register(user: String, token: String) { tokens[user, default: []].insert(token) }

    public func tokens(of user: String) -> Set<String> { tokens[user] ?? [] }

    /// Rings every phone of `user`.
    public func placeCall(to user: String, callId: UUID, caller: String) async throws -> [Delivery] {
        var deliveries: [Delivery] = []
        for token in tokens(of: user).sorted() {
            var attempts = 0
            var answer: (status: Int, reason: String?)
            repeat {
                if attempts > 0 { try await Task.sleep(for: .seconds(settings.backOff * Double(1 << (attempts - 1)))) }
                attempts += 1
                answer = try push(token: token, callId: callId, caller: caller)
            } while (answer.status == 429 || answer.status >= 500) && attempts <= settings.retries
            // 410 Unregistered and 400 BadDeviceToken: the token is dead, never push it again.
            if answer.status == 410 || answer.reason == "BadDeviceToken" { tokens[user]?.remove(token) }
            deliveries.append(Delivery(token: token, status: answer.status, reason: answer.reason, attempts: attempts))
        }
        return deliveries
    }

    private func push(token: String, callId: UUID, caller: String) throws -> (status: Int, reason: String?) {
        let payload = #"{"aps":{},"callUUID":"\#(callId.uuidString.lowercased())","handle":"\#(caller)"}"#
        var arguments = [
            "-s", "--http2", "-w", "\n%{http_code}", "-H", "authorization: bearer \(try providerToken())",
            "-H", "apns-topic: \(settings.topic).voip", "-H", "apns-push-type: voip", "-H", "apns-priority: 10",
            "-H", "apns-expiration: 0", "--data-binary", payload, "\(settings.url)/3/device/\(token)",
        ]
        if let caFile = settings.caFile { arguments = ["--cacert", caFile] + arguments }
        let output = String(decoding: try Self.run("/usr/bin/curl", arguments, input: nil), as: UTF8.self)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = lines.dropLast().joined(separator: "\n")
        let reason = (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["reason"] as? String
        return (status, reason)
    }

    /// ES256 over `header.claims`, reused for 50 minutes (APNs refuses a new one more often than every
    /// 20 minutes, and one older than an hour).
    private func providerToken() throws -> String {
        if let jwt, Date().timeIntervalSince(jwt.issued) < 50 * 60 { return jwt.value }
        let issued = Date()
        let header = Self.base64URL(Data(#"{"alg":"ES256","kid":"\#(settings.keyId)"}"#.utf8))
        let claims = Self.base64URL(
            Data(#"{"iss":"\#(settings.teamId)","iat":\#(Int(issued.timeIntervalSince1970))}"#.utf8))
        let signature = try Self.run(
            "/usr/bin/openssl", ["dgst", "-sha256", "-sign", settings.keyFile], input: Data("\(header).\(claims)".utf8))
        // A DER signature: APNs accepts it as well as raw R||S.
        let value = "\(header).\(claims).\(Self.base64URL(signature))"
        jwt = (value, issued)
        return value
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func run(_ tool: String, _ arguments: [String], input: Data?) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        let inputPipe = Pipe()
        process.standardOutput = output
        process.standardInput = inputPipe
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(input) }
        try inputPipe.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
