import APNs
import Foundation
import MockAPNs
import Provider
import TestSupport
import Testing

/// The built-in provider's nghttp2 bulk sender against the mock in memory, and its pure policies:
/// Apple's retry rules, the JWT cache.
@Suite struct ProviderClientTests {
    @Test(
        "The nghttp2 bulk sender: 300 pushes in one batch, a GOAWAY after 120; the lost ones are sent again on a new connection, one try is not enough"
    )
    func bulkSenderAfterGoAway() throws {
        for attempts in [3, 1] {
            let world = try MemoryMock(acceptsUnknownTokens: true) { $0.plaintext = false }
            try world.control("POST", "/faults", ["action": "goaway", "afterAccepted": 120, "reason": "Shutdown"])
            let sender = try BulkSender(configuration: world.clientConfiguration(), attempts: attempts)
            var ids = MessageIdGenerator(seed: 3)
            let pushes = (0..<300).map { index in
                OutgoingPush.voip(
                    token: Paths.voipToken, bundleId: "com.ringside.testapp", callUUID: "call-\(index)",
                    caller: "alice",
                    apnsId: ids.next())
            }
            let answers = try sender.send(pushes)
            #expect(answers.count == 300)
            // In the order of the pushes: each answer carries its own push's apns-id.
            for (answer, push) in zip(answers, pushes) where answer.status != 0 {
                #expect(answer.apnsId == push.headers.first { $0.name == "apns-id" }?.value)
            }
            if attempts == 3 {
                #expect(
                    answers.allSatisfy { $0.status == 200 },
                    "\(answers.first { $0.status != 200 }.map { "\($0)" } ?? "")")
                #expect(answers.contains { $0.attempts == 2 })
                #expect(sender.connectionsOpened == 2)
            } else {
                #expect(answers.filter { $0.status == 200 }.count == 120)
                #expect(answers.filter { $0.status == 0 }.count == 180)
            }
        }
    }

    /// HTTP/2 names are lower case: the client lowers what it is given, and a request that carries
    /// its own authorization field gets no second one (APNs would answer a field sent twice with
    /// DuplicateHeaders).
    @Test("Header names are sent lower case, and a push's own authorization replaces the provider's JWT")
    func headerFields() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true) { $0.plaintext = false }
        let sender = try BulkSender(configuration: world.clientConfiguration())
        var push = OutgoingPush.voip(
            token: Paths.voipToken, bundleId: "com.ringside.testapp", callUUID: "c1", caller: "alice",
            apnsId: "5F6C5D5E-0000-4000-8000-000000000001")
        push.headers = push.headers.map { (name: $0.name.uppercased(), value: $0.value) }
        push.headers.append((name: "Authorization", value: "bearer \(world.jwt(keyId: "RINGKEY999"))"))
        let answer = try #require(try sender.send([push]).first)
        // The key id the push carried, not the provider's: its own field went, and it alone.
        #expect(answer.status == 403, "\(answer)")
        #expect(answer.reason == .invalidProviderToken, "\(answer)")
        #expect(answer.apnsId?.uppercased() == "5F6C5D5E-0000-4000-8000-000000000001")
    }

    /// An answer's `apns-id` is the request's own string when APNs repeats it, and what APNs sent
    /// when it does not: a malformed id is refused with an id of APNs's making ([RESP]).
    @Test("The answer's apns-id is the one APNs sent, whether it repeats the push's or not")
    func answeredIds() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true) { $0.plaintext = false }
        let sender = try BulkSender(configuration: world.clientConfiguration())
        let sent = ["5F6C5D5E-0000-4000-8000-000000000002", "5F6C5D5E-0000-4000-8000-00000000000X", "not-an-id"]
        let pushes = sent.map { id in
            OutgoingPush.voip(
                token: Paths.voipToken, bundleId: "com.ringside.testapp", callUUID: "c", caller: "alice", apnsId: id)
        }
        let answers = try sender.send(pushes)
        #expect(answers.map(\.status) == [200, 400, 400], "\(answers)")
        #expect(answers[0].apnsId == sent[0])
        for (answer, id) in zip(answers.dropFirst(), sent.dropFirst()) {
            let answered = try #require(answer.apnsId, "\(answer)")
            #expect(answered != id && UUID(uuidString: answered) != nil, "sent \(id), answered \(answered)")
            #expect(answer.headers.first { $0.name == "apns-id" }?.value == answered)
        }
    }

    /// The client writes a request's fields again only from the first that differs from the request
    /// before: each request must still carry exactly its own.
    @Test("Each push of a batch carries its own fields, whichever differ from the push before")
    func fieldsFromPushToPush() throws {
        let world = try MemoryMock(acceptsUnknownTokens: true) { $0.plaintext = false }
        let sender = try BulkSender(configuration: world.clientConfiguration())
        var ids = MessageIdGenerator(seed: 5)
        func voip(_ token: String) -> OutgoingPush {
            OutgoingPush.voip(
                token: token, bundleId: "com.ringside.testapp", callUUID: "c", caller: "alice", apnsId: ids.next())
        }
        let tokens = ["aa", "bb", "cc", "dd", "ee"].map { String(repeating: $0, count: 32) }
        var pushes = tokens.map(voip)
        pushes[1].headers.removeAll { $0.name == "apns-expiration" }  // one field fewer, from the middle
        pushes[2].headers.append((name: "apns-collapse-id", value: "c2"))  // one more, at the end
        pushes[3].headers[2].value = "5"  // the priority alone differs
        let answers = try sender.send(pushes)
        #expect(answers.allSatisfy { $0.status == 200 || $0.status == 400 }, "\(answers.map(\.status))")
        let received = world.events.pushes.map(\.request)
        #expect(received.map(\.deviceToken) == tokens)
        #expect(received.map(\.expiration) == ["0", nil, "0", "0", "0"])
        #expect(received.map(\.collapseId) == [nil, nil, "c2", nil, nil])
        #expect(received.map(\.priority) == ["10", "10", "10", "5", "10"])
        #expect(received.map(\.apnsId) == pushes.map(\.sentApnsId))

        // A request whose fields are those of the one before less the last: with certificate
        // authentication no JWT follows them, and no apns-id here.
        let mock = try MemoryMock(acceptsUnknownTokens: true) { $0.plaintext = false }
        let certified = try BulkSender(
            configuration: mock.clientConfiguration(
                authentication: .certificate(
                    certificateFile: Paths.certs + "/client-voip.pem", keyFile: Paths.certs + "/client-voip.key")))
        let fields = [
            (name: "apns-topic", value: "com.ringside.testapp.voip"), (name: "apns-push-type", value: "voip"),
            (name: "apns-expiration", value: "0"), (name: "apns-collapse-id", value: "c1"),
        ]
        let body = Array(AppleExample.payload.utf8)
        let both = [
            OutgoingPush(deviceToken: tokens[0], payload: body, headers: fields),
            OutgoingPush(deviceToken: tokens[0], payload: body, headers: Array(fields.dropLast())),
        ]
        #expect(try certified.send(both).map(\.status) == [200, 200])
        #expect(mock.events.pushes.map(\.request.collapseId) == ["c1", nil])
    }

    @Test("Apple's retry rules: never retry dead tokens, refresh the JWT once, back off on 429 and 5xx")
    func responsePolicy() {
        let policy = ResponsePolicy()
        #expect(policy.next(status: 200, reason: nil, attempt: 1, jitter: 0) == .delivered)
        #expect(policy.next(status: 410, reason: .unregistered, attempt: 1, jitter: 0) == .forgetToken(.unregistered))
        #expect(
            policy.next(status: 400, reason: .badDeviceToken, attempt: 1, jitter: 0) == .forgetToken(.badDeviceToken))
        #expect(policy.next(status: 403, reason: .expiredProviderToken, attempt: 1, jitter: 0) == .refreshTokenAndRetry)
        #expect(policy.next(status: 403, reason: .expiredProviderToken, attempt: 2, jitter: 0) == .giveUp)
        #expect(policy.next(status: 503, reason: .serviceUnavailable, attempt: 1, jitter: 0) == .retry(after: 0.25))
        #expect(policy.next(status: 503, reason: .serviceUnavailable, attempt: 3, jitter: 1) == .retry(after: 2))
        #expect(policy.next(status: 503, reason: .shutdown, attempt: 1, jitter: 0) == .reconnectAndRetry(after: 0))
        // A transport error (a refused handshake, say): at once, then backing off.
        #expect(policy.next(status: 0, reason: nil, attempt: 1, jitter: 0) == .reconnectAndRetry(after: 0))
        #expect(policy.next(status: 0, reason: nil, attempt: 3, jitter: 1) == .reconnectAndRetry(after: 1))
        #expect(policy.next(status: 400, reason: .badTopic, attempt: 1, jitter: 0) == .fix(.badTopic))
        #expect(policy.next(status: 500, reason: .internalServerError, attempt: 4, jitter: 0) == .giveUp)
    }

    @Test("One JWT is reused for 50 minutes and replaced at once after ExpiredProviderToken")
    func tokenCache() throws {
        let key = try ES256Key(pem: String(contentsOfFile: Paths.certs + "/AuthKey_RINGKEY001.p8", encoding: .utf8))
        var cache = ProviderTokenCache(keyId: "RINGKEY001", teamId: "RINGTEAM01", key: key)
        let first = try cache.token(at: 1_800_000_000)
        #expect(try cache.token(at: 1_800_000_000 + 49 * 60) == first)
        let second = try cache.token(at: 1_800_000_000 + 50 * 60)
        #expect(second != first)
        cache.expired()
        #expect(try cache.token(at: 1_800_000_000 + 51 * 60) != second)
        #expect(cache.signed == 3)
    }
}
