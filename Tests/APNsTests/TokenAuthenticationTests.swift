import APNs
import Testing

/// Token-based authentication ([TOKEN], docs/apns-facts.md §4), driven with a manual clock.
@Suite struct TokenAuthenticationTests {
    let validator = Validator(settings: ValidationSettings(), keys: Fixtures.keys)

    func push(_ jwt: String, _ credentials: inout ConnectionCredentials, at moment: Moment = Fixtures.start) -> Result<
        AcceptedPush, Rejection
    > {
        validator.validate(Fixtures.voipPush(authorization: "bearer \(jwt)"), credentials: &credentials, at: moment)
    }

    @Test(
        "The first valid JWT on a connection is flagged (APNs then raises MAX_CONCURRENT_STREAMS); later ones are not")
    func firstValidToken() throws {
        var credentials = AuthMode.token.credentials()
        let jwt = Fixtures.jwt()
        #expect(try push(jwt, &credentials).get().isFirstValidToken)
        #expect(try push(jwt, &credentials).get().isFirstValidToken == false)
    }

    @Test("Raw R||S and DER signatures both verify")
    func bothSignatureEncodings() {
        var raw = AuthMode.token.credentials()
        var der = AuthMode.token.credentials()
        #expect(push(Fixtures.jwt(der: false), &raw).reason == nil)
        #expect(push(Fixtures.jwt(der: true), &der).reason == nil)
    }

    @Test("A JWT issued more than an hour ago is ExpiredProviderToken")
    func hourOldToken() {
        var credentials = AuthMode.token.credentials()
        let old = Fixtures.jwt(issuedAt: Fixtures.start.wall - 3601)
        #expect(push(old, &credentials).reason == .expiredProviderToken)
        var fresh = AuthMode.token.credentials()
        #expect(push(Fixtures.jwt(issuedAt: Fixtures.start.wall - 3500), &fresh).reason == nil)
    }

    @Test("A JWT that was fresh expires when the world clock passes its hour, without re-verification")
    func tokenAgesWithWorldClock() {
        var credentials = AuthMode.token.credentials()
        let jwt = Fixtures.jwt()
        #expect(push(jwt, &credentials).reason == nil)
        let later = Moment(world: Fixtures.start.world + 3601, wall: Fixtures.start.wall + 1)
        #expect(push(jwt, &credentials, at: later).reason == .expiredProviderToken)
    }

    @Test("A JWT first seen on one connection, then the world clock advanced 2 h, is expired on a new connection")
    func firstSightIsShared() {
        var first = AuthMode.token.credentials()
        let jwt = Fixtures.jwt()
        #expect(push(jwt, &first).reason == nil)
        let later = Moment(world: Fixtures.start.world + 7200, wall: Fixtures.start.wall + 1)
        var second = AuthMode.token.credentials()
        #expect(push(jwt, &second, at: later).reason == .expiredProviderToken)
        // Another mock (another validator) never saw it: fresh by its wall-clock age.
        var elsewhere = AuthMode.token.credentials()
        let other = Validator(settings: ValidationSettings(), keys: Fixtures.keys)
        #expect(
            other.validate(
                Fixtures.voipPush(authorization: "bearer \(jwt)"), credentials: &elsewhere, at: later
            ).reason == nil)
    }

    @Test("A JWT from an unknown key, a wrong team, a bad signature or garbage is InvalidProviderToken")
    func invalidTokens() {
        let unknownKey = try! ProviderToken.sign(
            keyId: "RINGKEY999", teamId: "RINGTEAM01", issuedAt: Int64(Fixtures.start.wall),
            key: Fixtures.signingKey("RINGKEY999"))
        let wrongTeam = Fixtures.jwt(keyId: "RINGKEY001", teamId: "RINGTEAM02")
        var tampered = Fixtures.jwt()
        tampered.removeLast(4)
        tampered += "AAAA"
        let signedByOtherKey = try! ProviderToken.sign(
            keyId: "RINGKEY001", teamId: "RINGTEAM01", issuedAt: Int64(Fixtures.start.wall),
            key: Fixtures.signingKey("RINGKEY005"))
        for jwt in [unknownKey, wrongTeam, tampered, signedByOtherKey, "not.a.jwt", "abc"] {
            var credentials = AuthMode.token.credentials()
            #expect(push(jwt, &credentials).reason == .invalidProviderToken, "\(jwt.prefix(40))")
        }
    }

    @Test("No authorization, or one without 'bearer', is MissingProviderToken")
    func missingToken() {
        var credentials = AuthMode.token.credentials()
        #expect(
            validator.validate(Fixtures.voipPush(authorization: nil), credentials: &credentials, at: Fixtures.start)
                .reason == .missingProviderToken)
        #expect(
            validator.validate(
                Fixtures.voipPush(authorization: Fixtures.jwt()), credentials: &credentials, at: Fixtures.start
            ).reason == .missingProviderToken)
    }

    @Test(
        "A new JWT within 20 minutes on one connection is TooManyProviderTokenUpdates, and the connection stays unusable"
    )
    func tooManyUpdates() {
        var credentials = AuthMode.token.credentials()
        #expect(push(Fixtures.jwt(), &credentials).reason == nil)
        let tenMinutesLater = Moment(Fixtures.start.world + 600)
        let second = Fixtures.jwt(issuedAt: tenMinutesLater.wall)
        #expect(push(second, &credentials, at: tenMinutesLater).reason == .tooManyProviderTokenUpdates)
        #expect(push(Fixtures.jwt(), &credentials, at: tenMinutesLater).reason == .tooManyProviderTokenUpdates)
        let twentyOneLater = Moment(Fixtures.start.world + 1260)
        #expect(push(second, &credentials, at: twentyOneLater).reason == nil)
    }

    @Test("The same JWT after 'Bearer' or two spaces is the same token, not a new one (no 429)")
    func sameTokenOtherSpelling() {
        var credentials = AuthMode.token.credentials()
        let jwt = Fixtures.jwt()
        #expect(push(jwt, &credentials).reason == nil)
        for authorization in ["Bearer \(jwt)", "bearer  \(jwt)", "BEARER \(jwt)"] {
            let request = Fixtures.voipPush(authorization: authorization)
            #expect(
                validator.validate(request, credentials: &credentials, at: Fixtures.start).reason == nil,
                "\(authorization.prefix(8))")
        }
    }

    @Test("A new JWT after 20 minutes is accepted")
    func refreshAfterTwentyMinutes() {
        var credentials = AuthMode.token.credentials()
        #expect(push(Fixtures.jwt(), &credentials).reason == nil)
        let later = Moment(Fixtures.start.world + 1201)
        #expect(push(Fixtures.jwt(issuedAt: later.wall), &credentials, at: later).reason == nil)
    }

    @Test(
        "After the first push, another team's key is InvalidProviderToken and an unrelated key of the team is UnrelatedKeyIdInToken"
    )
    func connectionBinding() {
        var credentials = AuthMode.token.credentials()
        #expect(push(Fixtures.jwt(), &credentials).reason == nil)
        let later = Moment(Fixtures.start.world + 1500)
        let otherTeam = Fixtures.jwt(keyId: "RINGKEY002", teamId: "RINGTEAM02", issuedAt: later.wall)
        #expect(push(otherTeam, &credentials, at: later).reason == .invalidProviderToken)
        let unrelated = Fixtures.jwt(keyId: "RINGKEY005", teamId: "RINGTEAM01", issuedAt: later.wall)
        #expect(push(unrelated, &credentials, at: later).reason == .unrelatedKeyIdInToken)
    }

    @Test("A key restricted to the other environment gets the configured spelling")
    func environmentRestrictedKey() {
        let productionKey = Fixtures.jwt(keyId: "RINGKEY004")
        var credentials = AuthMode.token.credentials()
        #expect(push(productionKey, &credentials).reason == .badEnvironmentKeyInToken)
        let apple = Validator(
            settings: ValidationSettings(environmentKeyReason: .badEnvironmentKeyIdInToken), keys: Fixtures.keys)
        var again = AuthMode.token.credentials()
        #expect(
            apple.validate(
                Fixtures.voipPush(authorization: "bearer \(productionKey)"), credentials: &again, at: Fixtures.start
            ).reason == .badEnvironmentKeyIdInToken)
        let sandboxKey = Fixtures.jwt(keyId: "RINGKEY003")
        var sandbox = AuthMode.token.credentials()
        #expect(push(sandboxKey, &sandbox).reason == nil)
    }

    @Test("A topic of another team's app is TopicDisallowed")
    func otherTeamsTopic() {
        var credentials = AuthMode.token.credentials()
        let request = Fixtures.voipPush().with("apns-topic", "com.ringside.otherapp.voip")
        #expect(validator.validate(request, credentials: &credentials, at: Fixtures.start).reason == .topicDisallowed)
    }
}

/// Certificate-based authentication ([CERT], docs/apns-facts.md §5) with the committed certificates.
@Suite struct CertificateTests {
    @Test("Topics come from the 1.2.840.113635.100.6.3.6 extension, environments from .1 and .2")
    func parsesTestCertificates() {
        let voip = Fixtures.certificate("voip")
        #expect(voip.uid == "com.ringside.testapp")
        #expect(
            voip.topics == ["com.ringside.testapp", "com.ringside.testapp.voip", "com.ringside.testapp.complication"])
        #expect(voip.environments == [.sandbox, .production])
        #expect(Fixtures.certificate("novoip").topics == ["com.ringside.testapp"])
        #expect(Fixtures.certificate("sandbox-only").environments == [.sandbox])
        #expect(Fixtures.certificate("production-only").environments == [.production])
        #expect(Fixtures.certificate("plain").topics.isEmpty)
        #expect((Fixtures.certificate("expired").notAfter ?? .infinity) < Fixtures.start.world)
    }

    func validate(_ request: PushRequest, certificate: String, environment: APNsEnvironment = .sandbox) -> Result<
        AcceptedPush, Rejection
    > {
        var credentials = ConnectionCredentials.certificate(Fixtures.certificate(certificate))
        return Validator(settings: ValidationSettings(environment: environment), keys: Fixtures.keys)
            .validate(request, credentials: &credentials, at: Fixtures.start)
    }

    @Test("The authorization header is ignored on a certificate connection")
    func ignoresAuthorization() {
        #expect(validate(Fixtures.voipPush(authorization: "bearer garbage"), certificate: "voip").reason == nil)
    }

    @Test("A certificate without the .voip topic cannot push VoIP: BadTopic")
    func noVoipTopic() {
        #expect(validate(Fixtures.voipPush(), certificate: "novoip").reason == .badTopic)
    }

    @Test("A certificate of the other environment is BadCertificateEnvironment")
    func wrongEnvironment() {
        #expect(validate(Fixtures.voipPush(), certificate: "production-only").reason == .badCertificateEnvironment)
        #expect(validate(Fixtures.voipPush(), certificate: "production-only", environment: .production).reason == nil)
    }

    @Test("A certificate that names no APNs topic is BadCertificate")
    func plainCertificate() {
        #expect(validate(Fixtures.voipPush(), certificate: "plain").reason == .badCertificate)
    }

    @Test("A multi-topic certificate needs apns-topic; a single-topic one defaults to it")
    func topicDefault() throws {
        #expect(validate(Fixtures.voipPush().with("apns-topic", nil), certificate: "voip").reason == .missingTopic)
        let alert = Fixtures.voipPush().with("apns-topic", nil).with("apns-push-type", "alert")
        #expect(try validate(alert, certificate: "novoip").get().topic == "com.ringside.testapp")
    }

    @Test("A location push over a certificate is Forbidden (token authentication only)")
    func locationNeedsToken() {
        let request = Fixtures.voipPush().with("apns-push-type", "location").with(
            "apns-topic", "com.ringside.testapp.location-query")
        #expect(validate(request, certificate: "voip").reason == .forbidden)
        var credentials = ConnectionCredentials.certificate(
            ClientCertificate(
                uid: "com.ringside.testapp", topics: ["com.ringside.testapp.location-query"], environments: [.sandbox]))
        let result = Validator(settings: ValidationSettings(), keys: Fixtures.keys).validate(
            request, credentials: &credentials, at: Fixtures.start)
        #expect(result.reason == .forbidden)
    }
}
