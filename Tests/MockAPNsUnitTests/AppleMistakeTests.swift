import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing

/// Each single mistake in Apple's VoIP example (issue: "Must show"), and the ids the answers carry:
/// the mock in memory (`MemoryMock`), the request as curl sends it.
@Suite struct AppleMistakeTests {
    /// `apns-id`s follow the seed (a replay repeats the transcript); `apns-unique-id`s, in no
    /// transcript, are unique as Apple's are.
    @Test("Two mocks with the same seed give the same apns-id and different apns-unique-ids")
    func uniqueIdsDifferAcrossServers() throws {
        let first = try MemoryMock.protocolOnly(seed: 7).applePush()
        let second = try MemoryMock.protocolOnly(seed: 7).applePush()
        #expect(first.headers["apns-id"] == second.headers["apns-id"])
        #expect(UUIDSyntax.isCanonical(first.headers["apns-unique-id"] ?? ""))
        #expect(first.headers["apns-unique-id"] != second.headers["apns-unique-id"])
    }

    @Test("Production does not return apns-unique-id")
    func productionHasNoUniqueId() throws {
        let server = try MemoryMock.protocolOnly(ValidationSettings(environment: .production))
        let response = server.applePush()
        #expect(response.status == 200)
        #expect(response.headers["apns-unique-id"] == nil)
    }

    struct Mistake: Sendable, CustomStringConvertible {
        var description: String
        var profile: ValidationSettings.Profile = .apple
        var headers: [String: String?] = [:]
        var body: String?
        var method: String?
        var path: String?
        var token: String?
        var status: Int
        var reason: Reason?
    }

    static let mistakes: [Mistake] = [
        Mistake(
            description: "topic without .voip under voip-lint", profile: .voipLint,
            headers: ["apns-topic": "com.ringside.testapp"], status: 400, reason: .topicDisallowed),
        Mistake(
            description: "priority 5 under voip-lint", profile: .voipLint, headers: ["apns-priority": "5"], status: 400,
            reason: .badPriority),
        Mistake(description: "no topic", headers: ["apns-topic": nil], status: 400, reason: .missingTopic),
        Mistake(description: "a malformed token", token: "not-a-token", status: 400, reason: .badDeviceToken),
        Mistake(
            description: "5121 bytes of VoIP payload", body: String(repeating: "x", count: 5121), status: 413,
            reason: .payloadTooLarge),
        Mistake(
            description: "5120 bytes of VoIP payload is fine", body: String(repeating: "x", count: 5120), status: 200),
        Mistake(description: "GET", method: "GET", status: 405, reason: .methodNotAllowed),
        Mistake(description: "path /3/foo", path: "/3/foo", status: 404, reason: .badPath),
        Mistake(
            description: "an hour-old JWT", headers: ["authorization": "bearer \(Paths.jwt(age: 3601))"], status: 403,
            reason: .expiredProviderToken),
        Mistake(
            description: "a JWT from an unknown key",
            headers: ["authorization": "bearer \(Paths.jwt(keyId: "RINGKEY999"))"], status: 403,
            reason: .invalidProviderToken),
        Mistake(
            description: "no authorization", headers: ["authorization": nil], status: 403, reason: .missingProviderToken
        ),
    ]

    @Test("Each single mistake gets its documented status and reason", arguments: mistakes)
    func mistake(_ mistake: Mistake) throws {
        let server = try MemoryMock.protocolOnly(ValidationSettings(profile: mistake.profile))
        let response = server.applePush(
            token: mistake.token ?? Paths.voipToken, headers: mistake.headers,
            body: mistake.body ?? #"{"aps":{},"callUUID":"x"}"#, method: mistake.method ?? "POST", path: mistake.path)
        #expect(response.status == mistake.status, "\(response.body)")
        #expect(response.reason == mistake.reason?.wire)
        if mistake.reason != nil {
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.headers["apns-id"] != nil)
        }
        // The server keeps serving after the mistake.
        #expect(server.applePush().status == 200)
    }

    @Test("The log line and the transcript say which rule refused a push and why")
    func explainsRejection() throws {
        let server = try MemoryMock.protocolOnly(ValidationSettings(profile: .voipLint))
        _ = server.applePush(headers: ["apns-priority": "5"])
        let record = try #require(server.events.pushes.last)
        #expect(record.rejection?.lint == .priorityNotImmediate)
        let line = RequestLog.line(for: .push(record))
        #expect(line.contains("400 BadPriority"))
        #expect(line.contains("apns-priority <5>, expected <10>"))
        #expect(line.contains("Hint:"))
        let json = TranscriptWriter.render(.push(record))
        #expect(json.contains(#""reason":"BadPriority""#))
        #expect(json.contains(#""lint":"voip-lint/priority-not-10""#))
        #expect(json.contains("<signature redacted>"))
        #expect(!json.contains(String(Paths.jwt().suffix(30))))
    }
}
