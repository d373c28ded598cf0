import APNs
import Testing

/// A connection that sees the same header block again skips the checks that read only the headers
/// (`Validator.CheckedHeaders`, issue 12); what the clock, the body and the world say still counts.
@Suite struct CheckedHeadersTests {
    /// A directory whose answer the test changes between two pushes (the world changed).
    final class ChangingDirectory: DeviceDirectory, @unchecked Sendable {
        var answer = DeviceLookup.active
        func lookup(token: String, topic: String, environment: APNsEnvironment, now: Double) -> DeviceLookup { answer }
    }

    /// Validates `first`, then `second` with what the first taught, and `second` afresh on the same
    /// credentials: the two verdicts on `second` must be the same.
    static func again(
        _ first: PushRequest, then second: PushRequest, at later: Moment, order: ValidationOrder, mode: AuthMode,
        change: (ChangingDirectory) -> Void = { _ in }
    ) -> (remembered: Reason?, afresh: Reason?, learnt: Bool) {
        let directory = ChangingDirectory()
        let validator = Validator(settings: ValidationSettings(order: order), keys: Fixtures.keys, directory: directory)
        var credentials = mode.credentials()
        var checked: Validator.CheckedHeaders?
        _ = validator.validate(first, credentials: &credentials, at: Fixtures.start, checked: &checked)
        let learnt = checked != nil
        change(directory)
        var copy = credentials
        let remembered = validator.validate(second, credentials: &credentials, at: later, checked: &checked).reason
        var none: Validator.CheckedHeaders?
        let afresh = validator.validate(second, credentials: &copy, at: later, checked: &none).reason
        return (remembered, afresh, learnt)
    }

    @Test("A JWT that aged past its hour is refused on a repeated block", arguments: ValidationOrder.allCases)
    func jwtAges(order: ValidationOrder) {
        let push = Fixtures.voipPush()
        let later = Moment(world: Fixtures.start.world + 3601, wall: Fixtures.start.wall + 3601)
        let result = Self.again(push, then: push, at: later, order: order, mode: .token)
        #expect(result.learnt)
        #expect(result.afresh == .expiredProviderToken)
        #expect(result.remembered == .expiredProviderToken)
    }

    @Test("An empty or oversized body is refused on a repeated block", arguments: AuthMode.allCases)
    func bodyCounts(mode: AuthMode) {
        for order in ValidationOrder.allCases {
            for (body, reason) in [(0, Reason.payloadEmpty), (5121, .payloadTooLarge)] {
                // One push, so one JWT: only the body differs.
                let push = Fixtures.voipPush()
                let result = Self.again(push, then: push.withBody(body), at: Fixtures.start, order: order, mode: mode)
                #expect(result.afresh == reason)
                #expect(result.remembered == reason, "\(order) \(body)")
            }
        }
    }

    @Test("A token the world retired in between is refused on a repeated block", arguments: AuthMode.allCases)
    func worldCounts(mode: AuthMode) {
        for order in ValidationOrder.allCases {
            let push = Fixtures.voipPush()
            let result = Self.again(
                push, then: push, at: Fixtures.start, order: order, mode: mode,
                change: { $0.answer = .unregistered(sinceMilliseconds: 1_799_000_000_000) })
            #expect(result.afresh == .unregistered)
            #expect(result.remembered == .unregistered, "\(order)")
        }
    }

    @Test("A refused block teaches nothing; an accepted one is accepted again", arguments: AuthMode.allCases)
    func onlyAcceptedBlocksAreRemembered(mode: AuthMode) {
        let refused = Fixtures.voipPush().with("apns-priority", "7")
        let first = Self.again(refused, then: refused, at: Fixtures.start, order: .authFirst, mode: mode)
        #expect(!first.learnt)
        #expect(first.remembered == .badPriority)
        let push = Fixtures.voipPush()
        let second = Self.again(push, then: push, at: Fixtures.start, order: .authFirst, mode: mode)
        #expect(second.learnt)
        #expect(second.remembered == nil && second.afresh == nil)
    }

    @Test(
        "A repeated block's push is the push its checks learnt, down to the first valid JWT",
        arguments: AuthMode.allCases)
    func repeatedPushIsWhatWasLearnt(mode: AuthMode) throws {
        // The connection passes the last push back with the block (`CheckedHeaders.accepted`); a
        // push is shared only when the checks learnt the same of it, field for field.
        for order in ValidationOrder.allCases {
            let validator = Validator(settings: ValidationSettings(order: order), keys: Fixtures.keys)
            var credentials = mode.credentials()
            var checked: Validator.CheckedHeaders?
            var firsts: [Bool] = []
            let push = Fixtures.voipPush()  // one JWT: a new one each time would be refused (429)
            for _ in 0..<3 {
                var copy = credentials
                let remembered = try validator.validate(
                    push, credentials: &credentials, at: Fixtures.start, checked: &checked
                ).get()
                var none: Validator.CheckedHeaders?
                let afresh = try validator.validate(
                    push, credentials: &copy, at: Fixtures.start, checked: &none
                ).get()
                firsts.append(remembered.isFirstValidToken)
                #expect(remembered.isFirstValidToken == afresh.isFirstValidToken, "\(order) \(mode)")
                #expect(remembered.deviceToken == afresh.deviceToken && remembered.topic == afresh.topic)
                #expect(remembered.pushType == afresh.pushType && remembered.priority == afresh.priority)
                #expect(remembered.expiration == afresh.expiration && remembered.collapseId == afresh.collapseId)
                #expect(remembered.keyId == afresh.keyId && remembered.teamId == afresh.teamId)
            }
            // Under token authentication the first push carried the connection's first valid JWT.
            #expect(firsts == (mode == .token ? [true, false, false] : [false, false, false]), "\(order)")
        }
    }

    @Test("Only checks that read nothing but the header block are skipped")
    func skippedChecks() {
        let skipped = Set(Check.allCases.filter(\.readsOnlyHeaders))
        #expect(!skipped.contains(.authentication) && !skipped.contains(.payload) && !skipped.contains(.device))
        #expect(!skipped.contains(.topicAuthorization) && !skipped.contains(.voipLint))
    }
}

/// Values boxed for speed (issue 12) keep value semantics: a changed copy leaves the original alone.
@Suite struct BoxedValueTests {
    @Test("A changed copy of an accepted push leaves the original as it was")
    func acceptedPushIsAValue() {
        let original = AcceptedPush(
            deviceToken: "ab", topic: "t", pushType: .voip, priority: .immediate, expiration: 0, collapseId: nil,
            keyId: "K", teamId: "T", isFirstValidToken: true)
        var copy = original
        copy.topic = "changed"
        copy.notes.append(.derSignature)
        #expect(original.topic == "t" && original.notes.isEmpty)
        #expect(copy.topic == "changed" && copy.notes == [.derSignature] && copy.keyId == "K")
    }

    @Test("apns-ids are canonical version 4 UUIDs spelling the generator's two words")
    func messageIds() {
        var ids = MessageIdGenerator(seed: 42)
        var words = SeededGenerator(seed: 42)
        for _ in 0..<200 {
            let id = ids.next()
            #expect(UUIDSyntax.isCanonical(id) && id == id.lowercased())
            let high = (words.next() & ~0xF000) | 0x4000
            let low = (words.next() & ~(0xC << 60)) | (0x8 << 60)
            func hex(_ word: UInt64) -> String {
                let digits = String(word, radix: 16)
                return String(repeating: "0", count: 16 - digits.count) + digits
            }
            #expect(String(id.filter { $0 != "-" }) == hex(high) + hex(low))
            #expect(Array(id)[14] == "4" && "89ab".contains(Array(id)[19]))
        }
    }
}
