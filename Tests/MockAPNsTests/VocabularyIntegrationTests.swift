import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing

/// Every reason of the vocabulary, provoked at least once through a real socket.
@Suite(.serialized) struct VocabularyIntegrationTests {
    /// How a client authenticates; header rules run under both (docs/architecture.md, "Both authentications").
    enum Mode: String, CaseIterable, CustomStringConvertible, Sendable {
        case token, certificate
        var description: String { rawValue }

        /// curl arguments replacing the JWT with the client certificate where needed.
        func push(
            _ server: MockServer, headers: [String: String?] = [:], body: String? = nil, method: String? = nil,
            path: String? = nil, token: String = Paths.voipToken
        ) throws -> CurlResponse {
            var headers = headers
            var extra: [String] = []
            if self == .certificate {
                headers["authorization"] = .some(nil)
                extra = ["--cert", Paths.certs + "/client-voip.pem", "--key", Paths.certs + "/client-voip.key"]
            }
            return try Curl.applePush(
                server, token: token, headers: headers, body: body ?? #"{"aps":{}}"#, method: method, path: path,
                extra: extra)
        }
    }

    /// The reasons that depend only on the request, and how to provoke each.
    static let headerRules: [Reason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic, .duplicateHeaders,
        .invalidPushType, .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed, .badPath,
        .methodNotAllowed, .payloadTooLarge,
    ]

    static func provokeHeaderRule(_ reason: Reason, mode: Mode, server: MockServer) throws -> CurlResponse {
        switch reason {
        case .badCollapseId:
            return try mode.push(server, headers: ["apns-collapse-id": String(repeating: "c", count: 65)])
        case .badDeviceToken: return try mode.push(server, token: "0123456789abcdefg0")
        case .badExpirationDate: return try mode.push(server, headers: ["apns-expiration": "soon"])
        case .badMessageId: return try mode.push(server, headers: ["apns-id": "not-a-uuid"])
        case .badPriority: return try mode.push(server, headers: ["apns-priority": "11"])
        case .badTopic: return try mode.push(server, headers: ["apns-topic": "com.ringside testapp.voip"])
        case .duplicateHeaders:
            // curl sends both lines of a header given twice.
            return try mode.push(server, headers: ["apns-priority": "10\r\napns-priority: 10"])
        case .invalidPushType: return try mode.push(server, headers: ["apns-push-type": "ring"])
        case .missingDeviceToken: return try mode.push(server, path: "/3/device/")
        case .missingTopic: return try mode.push(server, headers: ["apns-topic": nil])
        case .payloadEmpty: return try mode.push(server, body: "")
        case .topicDisallowed: return try mode.push(server, headers: ["apns-topic": "com.ringside.testapp"])
        case .badPath: return try mode.push(server, path: "/3/devices/\(Paths.voipToken)")
        case .methodNotAllowed: return try mode.push(server, method: "PUT")
        case .payloadTooLarge: return try mode.push(server, body: String(repeating: "x", count: 5121))
        default: fatalError("not a header rule: \(reason)")
        }
    }

    @Test(
        "Header rules answer the same under token and certificate authentication", arguments: Mode.allCases, headerRules
    )
    func headerRule(mode: Mode, reason: Reason) throws {
        let server = try MockServer()
        let response = try Self.provokeHeaderRule(reason, mode: mode, server: server)
        #expect(response.status == reason.status, "\(response.stderr)")
        #expect(response.reason == reason.wire)
    }

    @Test(
        "The device directory's answers: 410 Unregistered with a millisecond timestamp, 410 ExpiredToken, DeviceTokenNotForTopic, an unknown token"
    )
    func directoryReasons() throws {
        let dead = String(repeating: "de", count: 32)
        let expired = String(repeating: "ee", count: 32)
        let alertToken = String(repeating: "a1", count: 32)
        let other = String(repeating: "0f", count: 32)
        let directory = StaticDeviceDirectory([
            dead: .unregistered(sinceMilliseconds: 1_790_000_000_123), expired: .expired, alertToken: .notForTopic,
            other: .unknown,
        ])
        let server = try MockServer(directory: directory)
        let unregistered = try Curl.applePush(server, token: dead)
        #expect(unregistered.status == 410)
        #expect(unregistered.body == #"{"reason":"Unregistered","timestamp":1790000000123}"#)
        let expiredResponse = try Curl.applePush(server, token: expired)
        #expect(expiredResponse.status == 410)
        #expect(expiredResponse.reason == "ExpiredToken")
        #expect(try Curl.applePush(server, token: alertToken).reason == "DeviceTokenNotForTopic")
        #expect(try Curl.applePush(server, token: other).reason == "BadDeviceToken")
    }

    @Test(
        "Token authentication reasons: ExpiredProviderToken, InvalidProviderToken, MissingProviderToken, both spellings of the environment-key reason"
    )
    func tokenReasons() throws {
        let server = try MockServer()
        #expect(
            try Curl.applePush(server, headers: ["authorization": "bearer \(Paths.jwt(age: 3700))"]).reason
                == "ExpiredProviderToken")
        #expect(
            try Curl.applePush(server, headers: ["authorization": "bearer \(Paths.jwt(keyId: "RINGKEY999"))"]).reason
                == "InvalidProviderToken")
        #expect(try Curl.applePush(server, headers: ["authorization": nil]).reason == "MissingProviderToken")
        #expect(
            try Curl.applePush(server, headers: ["authorization": "bearer \(Paths.jwt(keyId: "RINGKEY004"))"]).reason
                == "BadEnvironmentKeyInToken")
        let apple = try MockServer(settings: ValidationSettings(environmentKeyReason: .badEnvironmentKeyIdInToken))
        let response = try Curl.applePush(apple, headers: ["authorization": "bearer \(Paths.jwt(keyId: "RINGKEY004"))"])
        #expect(response.status == 403)
        #expect(response.reason == "BadEnvironmentKeyIdInToken")
    }

    @Test(
        "On one connection: a second JWT within 20 minutes is 429 TooManyProviderTokenUpdates; an unrelated key is UnrelatedKeyIdInToken"
    )
    func connectionTokenRules() throws {
        let server = try MockServer()
        let updates = try Probe.run([
            "port": Int(server.port), "ca": Paths.ca, "alpn": ["h2"],
            "requests": [Probe.voip(jwt: Paths.jwt()), Probe.voip(jwt: Paths.jwt(age: 5))],
        ])
        #expect(Probe.reasons(updates) == ["200", "TooManyProviderTokenUpdates"])
        let unrelated = try Probe.run([
            "port": Int(server.port), "ca": Paths.ca,
            "requests": [Probe.voip(jwt: Paths.jwt()), Probe.voip(jwt: Paths.jwt(keyId: "RINGKEY005"))],
        ])
        #expect(Probe.reasons(unrelated) == ["200", "UnrelatedKeyIdInToken"])
    }

    @Test("Certificate reasons: BadCertificate, Forbidden, and GOAWAY BadCertificateEnvironment with last-stream-id 0")
    func certificateReasons() throws {
        let server = try MockServer()
        let plain = try Curl.applePush(
            server, headers: ["authorization": nil],
            extra: ["--cert", Paths.certs + "/client-plain.pem", "--key", Paths.certs + "/client-plain.key"])
        #expect(plain.status == 403)
        #expect(plain.reason == "BadCertificate")
        let location = try Curl.applePush(
            server,
            headers: [
                "authorization": nil, "apns-push-type": "location", "apns-topic": "com.ringside.testapp.location-query",
            ],
            extra: ["--cert", Paths.certs + "/client-voip.pem", "--key", Paths.certs + "/client-voip.key"])
        #expect(location.status == 403)
        #expect(location.reason == "Forbidden")
        let wrongEnvironment = try Probe.run([
            "port": Int(server.port), "ca": Paths.ca, "cert": Paths.certs + "/client-production-only.pem",
            "key": Paths.certs + "/client-production-only.key", "requests": [Probe.voip(jwt: nil)],
            "wait_for_goaway": true,
        ])
        let goaway = try #require(wrongEnvironment["goaway"] as? [String: Any])
        #expect(goaway["last_stream_id"] as? Int == 0)
        #expect(goaway["error_code"] as? Int == 0)
        #expect(goaway["debug"] as? String == #"{"reason":"BadCertificateEnvironment"}"#)
        #expect(server.waitUntilIdle() == 0)
    }

    @Test(
        "Armed faults answer 429 TooManyRequests, 500 InternalServerError and 503 ServiceUnavailable, then the rules resume"
    )
    func faultReasons() throws {
        let faults = FaultPlan()
        faults.arm(.init(reason: .tooManyRequests, count: 1, deviceToken: Paths.voipToken))
        faults.arm(.init(reason: .internalServerError, count: 1))
        faults.arm(.init(reason: .serviceUnavailable, count: 1))
        let server = try MockServer(faults: faults)
        let throttled = try Curl.applePush(server)
        #expect(throttled.status == 429)
        #expect(throttled.reason == "TooManyRequests")
        let failed = try Curl.applePush(server)
        #expect(failed.status == 500)
        #expect(failed.reason == "InternalServerError")
        let unavailable = try Curl.applePush(server)
        #expect(unavailable.status == 503)
        #expect(unavailable.reason == "ServiceUnavailable")
        #expect(try Curl.applePush(server).status == 200)
        #expect(faults.isEmpty)
    }

    @Test("An idle connection gets GOAWAY {\"reason\":\"IdleTimeout\"} and is closed")
    func idleTimeout() throws {
        let server = try MockServer(idleTimeout: 1)
        let output = try Probe.run([
            "port": Int(server.port), "ca": Paths.ca, "requests": [Probe.voip()], "wait_for_goaway": true, "wait": 5,
        ])
        #expect(Probe.reasons(output) == ["200"])
        #expect(Probe.goAwayReason(output) == "IdleTimeout")
        #expect(server.waitUntilIdle() == 0)
    }

    @Test("Stopping the server sends GOAWAY {\"reason\":\"Shutdown\"} with the last stream processed")
    func shutdown() throws {
        let server = try MockServer()
        nonisolated(unsafe) let config: [String: Any] = [
            "port": Int(server.port), "ca": Paths.ca, "requests": [Probe.voip()], "wait_for_goaway": true, "wait": 10,
        ]
        nonisolated(unsafe) var output: [String: Any] = [:]
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            output = (try? Probe.run(config)) ?? [:]
            done.signal()
        }
        let deadline = Date().addingTimeInterval(10)
        while server.events.pushes.isEmpty, Date() < deadline { usleep(20_000) }
        server.stop(debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
        done.wait()
        #expect(Probe.goAwayReason(output) == "Shutdown")
        #expect((output["goaway"] as? [String: Any])?["last_stream_id"] as? Int == 1)
    }

    @Test("Every reason of the vocabulary is provoked by one of the tests above")
    func vocabularyCovered() {
        let provoked: Set<Reason> = Set(Self.headerRules).union([
            .unregistered, .expiredToken, .deviceTokenNotForTopic, .badDeviceToken,
            .expiredProviderToken, .invalidProviderToken, .missingProviderToken, .badEnvironmentKeyInToken,
            .badEnvironmentKeyIdInToken, .tooManyProviderTokenUpdates, .unrelatedKeyIdInToken,
            .badCertificate, .forbidden, .badCertificateEnvironment,
            .tooManyRequests, .internalServerError, .serviceUnavailable, .idleTimeout, .shutdown,
        ])
        #expect(provoked == Set(Reason.allCases))
    }
}
