import APNs
import Testing

/// Numbers from the wire that once trapped: each now gets its documented answer.
@Suite struct NumbersAtTheEdgeTests {
    /// A JWT with any `iat` text, correctly signed with the public test key.
    static func jwt(iat: String) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"RINGKEY001"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"RINGTEAM01","iat":\#(iat)}"#.utf8))
        let signature = try Fixtures.signingKey("RINGKEY001").sign(Array("\(header).\(claims)".utf8))
        return "\(header).\(claims).\(Base64URL.encode(signature))"
    }

    @Test(
        "A signed JWT whose iat is out of every range is InvalidProviderToken, not a trap",
        arguments: ["1e19", "9223372036854775807", "-9223372036854775808", "1e300", "-1", "4102444801"])
    func iatOutOfRange(iat: String) throws {
        let request = Fixtures.voipPush(authorization: "bearer \(try Self.jwt(iat: iat))")
        let result = validate(request, mode: .token)
        #expect(result.reason == .invalidProviderToken, "\(result.rejection?.detail ?? "accepted")")
    }

    @Test(
        "An iat as Apple accepts it: an integer, a fraction (PyAPNs2) or a numeric string (kalyke)",
        arguments: ["1799999999", "1799999999.38", "\"1799999999\"", "\"1799999999.5\""])
    func lenientIat(iat: String) throws {
        let request = Fixtures.voipPush(authorization: "bearer \(try Self.jwt(iat: iat))")
        let result = validate(request, mode: .token)
        #expect(result.reason == nil, "\(result.rejection?.detail ?? "")")
    }

    @Test(
        "voip-lint notes a string iat also when a later check refuses the push; apple notes nothing; the answer is the same"
    )
    func notesOnRefusedPush() throws {
        var request = Fixtures.voipPush(authorization: "bearer \(try Self.jwt(iat: "\"1799999999\""))")
        request.priority = "5"
        let linted = validate(request, mode: .token, settings: ValidationSettings(profile: .voipLint))
        #expect(linted.reason == .badPriority)
        #expect(linted.rejection?.notes == [.issuedAtString])
        request.priority = "10"
        request.topic = "com.ringside.testapp"
        let apple = validate(request, mode: .token)
        #expect(apple.reason == .topicDisallowed, "push type voip with the bare bundle id")
        #expect(apple.rejection?.notes == [])
    }

    @Test(
        "apns-priority is exactly 10, 5 or 1 and apns-expiration digits only: a sign or leading zeros are refused",
        arguments: [
            ("apns-priority", "0010"), ("apns-priority", "+10"), ("apns-priority", "05"), ("apns-expiration", "+5"),
        ])
    func strictNumbers(header: String, value: String) {
        var request = Fixtures.voipPush()
        if header == "apns-priority" { request.priority = value } else { request.expiration = value }
        let reason = validate(request, mode: .token).reason
        #expect(reason == (header == "apns-priority" ? .badPriority : .badExpirationDate), "\(value)")
    }

    @Test(
        "An iat that is no time is InvalidProviderToken",
        arguments: ["\"soon\"", "\"1799999999x\"", "\"1799999999000\"", "null", "[1]", "\"\"", "true", "false"])
    func notATime(iat: String) throws {
        let request = Fixtures.voipPush(authorization: "bearer \(try Self.jwt(iat: iat))")
        #expect(validate(request, mode: .token).reason == .invalidProviderToken)
    }

    @Test("The world clock stays within a century of the wall clock")
    func clockOffset() {
        let clock = SystemClock()
        #expect(!clock.advance(by: 1e19))
        #expect(!clock.advance(by: .infinity))
        #expect(!clock.advance(by: .nan))
        #expect(!clock.advance(by: -1))
        #expect(clock.advance(by: 3600))
        #expect(clock.now().world - clock.now().wall > 3599)
    }
}
