import APNs
import Foundation
import Testing

@testable import World

/// The world's compact storage (issue 12): the token table, a phone's inline apps, the bounded call
/// ids, the topic check without a new string. Each test names the broken variant it catches.
@Suite struct WorldScaleTests {
    static let bundle = "com.ringside.testapp"
    let t0 = 1_800_000_000.0

    func push(_ world: World, token: String, at time: Double, call: String) -> Int {
        let accepted = AcceptedPush(
            deviceToken: token, topic: "\(Self.bundle).voip", pushType: .voip, priority: .immediate, expiration: 0,
            collapseId: nil, keyId: nil, teamId: nil, isFirstValidToken: false)
        let body = #"{"aps":{},"callUUID":"\#(call)","handle":"alice"}"#
        return world.accept(accepted, environment: .sandbox, body: Array(body.utf8), apnsId: "id", at: time)
    }

    /// A table that lost entries when it grew or dropped tombstones, or that a retired token's slot
    /// kept answering, fails here: every live token of 3,000 phones is found after growing from 16
    /// slots and after rotations that leave tombstones, every retired one answers 410, a made-up one
    /// is unknown.
    @Test("The token table finds every live token through growth and tombstones, and no retired one")
    func tokenTable() {
        var settings = WorldSettings()
        settings.throttle = nil
        settings.unregisterDelay = 0
        let world = World(settings: settings, seed: 3)
        let topic = "\(Self.bundle).voip"
        for index in 0..<3000 {
            world.addPhone(
                name: "phone \(index)",
                apps: [
                    AppSpec(bundleId: Self.bundle),
                    AppSpec(bundleId: "com.other.app", environment: index % 2 == 0 ? .sandbox : .production),
                ], at: t0)
        }
        var retired: [String] = []
        for round in 0..<3 {
            for phone in stride(from: round, to: 3000, by: 3) {
                retired.append(world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!)
                world.apply(.rotateToken, phone: phone, bundleId: Self.bundle, at: t0 + 1)
            }
        }
        var missing = 0
        for phone in 0..<3000 {
            let token = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
            if world.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + 2) != .active { missing += 1 }
            let other = world.token(phone: phone, bundleId: "com.other.app", kind: .voip)!
            let environment: APNsEnvironment = phone % 2 == 0 ? .sandbox : .production
            if world.lookup(token: other, topic: "com.other.app.voip", environment: environment, at: t0 + 2) != .active
            {
                missing += 1
            }
            // The other environment is another space of tokens ([RESP]).
            let wrong: APNsEnvironment = environment == .sandbox ? .production : .sandbox
            #expect(world.lookup(token: other, topic: "com.other.app.voip", environment: wrong, at: t0 + 2) == .unknown)
        }
        #expect(missing == 0, "\(missing) live tokens not found")
        let stillLive = retired.filter {
            if case .unregistered = world.lookup(token: $0, topic: topic, environment: .sandbox, at: t0 + 2) {
                return false
            }
            return true
        }
        #expect(stillLive.isEmpty, "\(stillLive.count) retired tokens do not answer 410")
        let madeUp = String(repeating: "ab", count: 32)
        #expect(world.lookup(token: madeUp, topic: topic, environment: .sandbox, at: t0 + 2) == .unknown)
    }

    /// The same table, raw: a rebuild at the same size (many tombstones, few live) keeps the live ones.
    @Test("Registering and retiring the same slots many times keeps the live tokens findable")
    func tombstonesRebuilt() {
        var registry = TokenRegistry()
        var live: [TokenValue] = []
        for round in 0..<50 {
            for index in 0..<20 {
                let token = TokenValue(
                    bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round &* 31 &+ index) })
                registry.register(token, environment: .sandbox, phone: index, kind: .voip)
                if round < 49 {
                    registry.retire(token, environment: .sandbox, phone: index, bundleId: "b", kind: .voip, at: 0) {
                        Int($0.phone) == index
                    }
                } else {
                    live.append(token)
                }
            }
        }
        for (index, token) in live.enumerated() {
            let entry = registry.live(token, environment: .sandbox) { Int($0.phone) == index }
            #expect(entry?.phone == Int32(index))
        }
    }

    /// A phone's apps inline: install, replace and remove keep order and content (an `AppList` whose
    /// `remove(at: 0)` dropped the rest, or whose subscript wrote to the wrong app, fails).
    @Test("A phone's apps: the first inline, the rest after it, in order through installs and removals")
    func appList() {
        let world = World(settings: WorldSettings(), seed: 1)
        let phone = world.addPhone(name: "p", apps: [AppSpec(bundleId: "a"), AppSpec(bundleId: "b")], at: t0)
        world.install(AppSpec(bundleId: "c"), phone: phone, at: t0)
        #expect(world.phones[phone].apps.map(\.bundleId) == ["a", "b", "c"])
        let tokens = ["a", "b", "c"].map { world.token(phone: phone, bundleId: $0, kind: .voip)! }
        world.apply(.uninstall, phone: phone, bundleId: "a", at: t0)
        #expect(world.phones[phone].apps.map(\.bundleId) == ["b", "c"])
        // Each token is found in its own app (`AppList.index(in:holding:kind:environment:)`, `bundleId(at:)`), moved or not.
        for (bundle, token) in zip(["b", "c"], tokens.dropFirst()) {
            #expect(world.lookup(token: token, topic: "\(bundle).voip", environment: .sandbox, at: t0) == .active)
            #expect(world.lookup(token: token, topic: "a.voip", environment: .sandbox, at: t0) == .notForTopic)
        }
        #expect(world.lookup(token: tokens[0], topic: "a.voip", environment: .sandbox, at: t0) != .active)
        world.apply(.forceQuit, phone: phone, bundleId: "c", at: t0)
        #expect(world.phones[phone].apps.map(\.isForceQuit) == [false, true])
        world.apply(.uninstall, phone: phone, bundleId: "b", at: t0)
        world.apply(.uninstall, phone: phone, bundleId: "c", at: t0)
        #expect(world.phones[phone].apps.isEmpty)
        #expect(world.lookup(token: tokens[2], topic: "c.voip", environment: .sandbox, at: t0) != .active)
        world.install(AppSpec(bundleId: "d"), phone: phone, at: t0)
        #expect(world.phones[phone].apps.map(\.bundleId) == ["d"])
        let d = world.token(phone: phone, bundleId: "d", kind: .voip)!
        #expect(world.lookup(token: d, topic: "d.voip", environment: .sandbox, at: t0) == .active)
    }

    /// The event queue hands events out earliest first, ties in the order they were scheduled,
    /// whether they came in time order (the queue) or not (the heap): against a sort of everything
    /// pushed, over mixes of in-order, out-of-order and tied times. A queue that took its head
    /// without comparing it with the heap's top, let an earlier event into its tail, or slotted an
    /// event before an equal one or past the searched end, fails.
    @Test("Scheduled events come out earliest first, ties in order, however they went in")
    func eventQueueOrder() {
        var random = SeededGenerator(seed: 11)
        for round in 0..<40 {
            var queue = EventQueue()
            var pending: [(at: Double, number: Int)] = []
            var out: [Int] = []
            var clock = 0.0
            var number = 0
            for _ in 0..<2000 {
                let roll = Int.random(in: 0..<10, using: &random)
                if roll < 6 {
                    // Mostly in time order; sometimes a tie with the last, a little earlier (slotted in
                    // near the queue's end), far earlier (a round trip's report: the heap), or a tie
                    // with an event still pending (it goes after it).
                    let at: Double
                    switch roll {
                    case 0: at = clock
                    case 1: at = clock - Double.random(in: 0...5, using: &random)
                    case 2: at = clock - Double.random(in: 0...300, using: &random)
                    case 3: at = pending.randomElement(using: &random)?.at ?? clock
                    default: at = clock + 0.5
                    }
                    clock = max(clock, at)
                    queue.push(ScheduledEvent(at: at, kind: .arrive(number)))
                    pending.append((at, number))
                    number += 1
                } else if let next = queue.pop() {
                    out.append(next.kind.number)
                    let index = pending.indices.min {
                        pending[$0].at < pending[$1].at
                            || (pending[$0].at == pending[$1].at && pending[$0].number < pending[$1].number)
                    }!
                    #expect(pending[index].number == next.kind.number, "round \(round)")
                    pending.remove(at: index)
                }
                #expect(queue.count == pending.count)
            }
            while let next = queue.pop() { out.append(next.kind.number) }
            #expect(out.count == number)
        }
    }

    /// The table hint the mock prefetches from names the slot a lookup reads first: inside the
    /// table, and the same slot for the same token, wherever the table moved as it grew.
    @Test("The token table's hint points at each token's first slot, inside the table")
    func tokenTableHint() {
        let world = World(seed: 3)
        #expect(world.tokenTableHint.mask == 15)
        for index in 0..<300 { world.addPhone(name: "p\(index)", apps: [AppSpec(bundleId: "b")], at: 0) }
        let hint = world.tokenTableHint
        #expect(hint.base != 0 && hint.mask >= 1023 && (hint.mask + 1) & hint.mask == 0)
        for phone in [0, 150, 299] {
            let token = TokenValue(hex: world.token(phone: phone, bundleId: "b", kind: .voip)!)!
            let slot = UInt(bitPattern: hint.address(of: token, environment: .sandbox))
            #expect(slot >= hint.base && slot < hint.base + UInt(hint.mask + 1) * 8)
            #expect(slot != UInt(bitPattern: hint.address(of: token, environment: .production)))
        }
        #expect(TokenTableHint(base: 0, mask: 15).address(of: TokenValue(bytes: [1]), environment: .sandbox) == nil)
    }

    /// The phone a slot names, read without the lock: the token's own phone while the table holds
    /// it, nil for a made-up token or one retired (a hint that names a wrong phone, or none, fails).
    @Test("The token table's hint names the phone holding each live token")
    func tokenTableHintPhone() {
        let world = World(seed: 3)
        for index in 0..<300 { world.addPhone(name: "p\(index)", apps: [AppSpec(bundleId: "b")], at: 0) }
        let hint = world.tokenTableHint
        var named = 0
        for phone in 0..<300 {
            let token = TokenValue(hex: world.token(phone: phone, bundleId: "b", kind: .voip)!)!
            let seen = hint.phone(of: token, environment: .sandbox)
            // Only the first slot is read: a token a probe placed further along is not guessed.
            #expect(seen == nil || seen == phone, "phone \(phone): \(String(describing: seen))")
            named += seen == phone ? 1 : 0
        }
        #expect(named >= 200, "\(named) of 300 named")
        #expect(hint.phone(of: TokenValue(hex: String(repeating: "0f", count: 32))!, environment: .sandbox) == nil)
        let token = TokenValue(hex: world.token(phone: 7, bundleId: "b", kind: .voip)!)!
        world.apply(.rotateToken, phone: 7, bundleId: "b", at: 1)
        #expect(world.tokenTableHint.phone(of: token, environment: .sandbox) == nil, "a retired token names none")
    }

    /// The mock reads a slot of a table that may have been rebuilt or dropped meanwhile: a table let
    /// go keeps its memory mapped (its pages read as zeros, or as the next table's), so the read
    /// names no phone and does not crash (a table unmapped when let go fails here with SIGSEGV).
    @Test("A token table let go can still be read through an old hint, safely")
    func tokenTableHintAfterRebuild() {
        var old: TokenTableHint
        var tokens: [TokenValue] = []
        do {
            // A seed no other test uses: a table of another test's, made in the memory let go here,
            // would otherwise hold the same tokens (a flaky failure in a parallel run, session 16).
            let world = World(seed: 0x7ab1_e5ee_d000_0047)
            world.reserve(phones: 4096)
            for index in 0..<100 { world.addPhone(name: "p\(index)", apps: [AppSpec(bundleId: "b")], at: 0) }
            old = world.tokenTableHint
            tokens = (0..<100).map { TokenValue(hex: world.token(phone: $0, bundleId: "b", kind: .voip)!)! }
            for index in 100..<9000 { world.addPhone(name: "p\(index)", apps: [AppSpec(bundleId: "b")], at: 0) }
            #expect(world.tokenTableHint.base != old.base, "the table was rebuilt elsewhere")
            #expect(tokens.allSatisfy { old.phone(of: $0, environment: .sandbox) == nil }, "rebuilt: zeros")
        }
        // The world is gone: its tables too.
        #expect(tokens.allSatisfy { old.phone(of: $0, environment: .sandbox) == nil })
    }

    /// Huge-page advice changes no byte and takes any range: none, small, unaligned, large.
    @Test("Huge-page advice leaves memory as it was, whatever the range")
    func hugePageAdvice() {
        var bytes = [UInt8](repeating: 0, count: 9 << 20)
        for index in stride(from: 0, to: bytes.count, by: 4096) {
            bytes[index] = UInt8(truncatingIfNeeded: index >> 12)
        }
        let before = bytes
        bytes.withUnsafeMutableBytes { buffer in
            adviseHugePages(nil, bytes: 1 << 30)
            adviseHugePages(buffer.baseAddress, bytes: 0)
            adviseHugePages(buffer.baseAddress, bytes: 4096)
            adviseHugePages(buffer.baseAddress! + 1, bytes: buffer.count - 1)
            adviseHugePages(buffer.baseAddress, bytes: buffer.count)
        }
        #expect(bytes == before)
    }

    /// CallKit refuses a call id it knows; a phone remembers the latest `RecentCalls.capacity` of them,
    /// not every id of its life. A repeat soon after is a duplicate; one after more calls than that
    /// rings again (a set without bound, or a ring that forgets too soon, fails).
    @Test("A repeated call id is a duplicate while the phone remembers it; the memory is bounded")
    func recentCalls() {
        var settings = WorldSettings()
        settings.throttle = nil
        let world = World(settings: settings, seed: 5)
        let phone = world.addPhone(name: "p", apps: [AppSpec(bundleId: Self.bundle)], at: t0)
        let token = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
        func call(_ index: Int) -> String { "5f6c5d5e-0000-4000-8000-\(String(format: "%012d", index))" }
        var time = t0
        func ring(_ id: String) -> String {
            time += 1
            let number = push(world, token: token, at: time, call: id)
            world.run(until: time + 0.5)
            return world.fate(number)!.outcome.kind
        }
        #expect(ring(call(0)) == "rang")
        #expect(ring(call(0)) == "duplicate")
        for index in 1...(RecentCalls.capacity - 1) { #expect(ring(call(index)) == "rang") }
        #expect(ring(call(0)) == "duplicate", "still among the latest \(RecentCalls.capacity)")
        #expect(ring(call(1000)) == "rang")
        #expect(ring(call(0)) == "rang", "forgotten after \(RecentCalls.capacity) newer calls")
    }

    /// A call id's key is one for every spelling CallKit reads as the same call, and two for two
    /// calls: a UUID in either case, or any other id by its lower-case text (a parse that dropped a
    /// digit, read letters of one case only, or took a near-UUID for one, fails).
    @Test("A call id's key: one for a UUID in either case, its bits spelled back; other ids by their text")
    func callKeys() {
        let id = "5f6c5d5e-a0b1-4c2d-8e3f-0123456789ab"
        #expect(CallKey(id) == CallKey(id.uppercased()))
        #expect(CallKey(id).description == id)
        #expect(CallKey(id.uppercased()).description == id)
        #expect(CallKey(id) == CallKey(high: 0x5f6c_5d5e_a0b1_4c2d, low: 0x8e3f_0123_4567_89ab))
        var random = SeededGenerator(seed: 3)
        var seen: [CallKey: String] = [:]
        for _ in 0..<5_000 {
            let text = UUID(
                uuid: (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }.withUnsafeBytes {
                    $0.load(as: uuid_t.self)
                }
            ).uuidString
            let key = CallKey(text)
            #expect(key.description == text.lowercased())
            #expect(seen[key] == nil || seen[key] == text, "\(text) and \(seen[key] ?? "") share a key")
            seen[key] = text
        }
        // One digit apart, in each of the 32 places: 32 keys.
        let digits = Array(id.utf8)
        let neighbours = digits.indices.filter { digits[$0] != UInt8(ascii: "-") }.map { place -> CallKey in
            var changed = digits
            changed[place] = changed[place] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            return CallKey(String(decoding: changed, as: UTF8.self))
        }
        #expect(Set(neighbours).count == 32)
        #expect(!neighbours.contains(CallKey(id)))
        // Not UUIDs: their text, in lower case, and never a UUID's key.
        #expect(CallKey("Call-42") == CallKey("call-42"))
        #expect(CallKey("Call-42").description == "call-42")
        #expect(CallKey("call-42") != CallKey("call-43"))
        #expect(CallKey(id + " ") != CallKey(id))
        #expect(CallKey(String(id.dropLast())) != CallKey(id))
        #expect(CallKey(id.replacingOccurrences(of: "-", with: "")) != CallKey(id))
        // 36 bytes, but not a UUID: a letter past f, a dash moved, a dash for a digit.
        for near in [
            "5f6c5d5e-a0b1-4c2d-8e3f-0123456789ag", "5f6c5d5ea-0b1-4c2d-8e3f-0123456789ab",
            "5f6c5d5e-a0b1-4c2d-8e3f-0123456789-b",
        ] {
            #expect(CallKey(near).description == near, "\(near) is kept as text")
            #expect(CallKey(near) != CallKey(id))
        }
        #expect(CallKey("") == CallKey(""))
    }

    /// A ring is late from its call's placing: the world keeps at least the latest
    /// `PlacedCalls.capacity` calls' times, the latest placing of an id reused, and forgets the
    /// oldest in the end (a table without bound, one that forgets too soon, or keeps the first
    /// placing of a reused id, fails).
    @Test("Placed calls: the latest capacity are kept, a reused id counts from its latest placing, old ones go")
    func placedCalls() {
        var placed = PlacedCalls()
        let capacity = PlacedCalls.capacity
        func id(_ index: Int) -> String { "5f6c5d5e-0000-4000-8000-\(String(format: "%012d", index))" }
        for index in 0..<(3 * capacity + 7) {
            placed.record(CallKey(id(index)), at: Double(index))
            if index % 997 == 0 || index % capacity < 3 || index % capacity > capacity - 3 {
                let first = max(0, index - capacity + 1)
                for kept in [first, (first + index) / 2, index] {
                    #expect(placed.time(of: id(kept).uppercased()) == Double(kept), "call \(kept) after \(index)")
                }
            }
        }
        #expect(placed.time(of: id(0)) == nil, "forgotten after \(3 * capacity) newer calls")
        #expect(placed.time(of: id(capacity)) == nil)
        // An id placed again: its latest time, in whichever generation it is.
        let latest = 3 * capacity + 6
        placed.record(CallKey(id(latest - capacity + 2)), at: -1)
        placed.record(CallKey(id(latest)), at: -2)
        #expect(placed.time(of: id(latest - capacity + 2)) == -1)
        #expect(placed.time(of: id(latest)) == -2)
    }

    /// The first two ids are kept in the phone itself, then moved into the ring with the third: the
    /// phone remembers exactly the latest `capacity` ids, whatever their count (keeping the first
    /// two for ever, or losing them at the third, fails).
    @Test("RecentCalls remembers exactly the latest ids, before, at and after its first two")
    func recentCallsInline() {
        var random = SeededGenerator(seed: 11)
        for length in [0, 1, 2, 3, 4, 31, 32, 33, 34, 70] {
            var recent = RecentCalls()
            var latest: [Int] = []
            for _ in 0..<length {
                let hash = Int.random(in: 0..<40, using: &random)
                if !recent.contains(hash) {
                    recent.insert(hash)
                    latest = Array((latest + [hash]).suffix(RecentCalls.capacity))
                }
                for probe in 0..<40 {
                    #expect(recent.contains(probe) == latest.contains(probe), "after \(latest.count) ids, \(probe)")
                }
            }
        }
    }

    /// The topic check the world makes per push, without a new string, says what `bundleId(ofTopic:)`
    /// says, for every suffix, a bundle that itself ends like a suffix, prefixes and non-ASCII.
    /// So does the check with the topic's shape worked out before (`AcceptedPush.topicShape`), and
    /// the shape says `.voip` exactly when the topic ends so.
    @Test("PushType.isTopic, with or without the topic's shape, agrees with bundleId(ofTopic:)")
    func topicCheck() {
        let bundles = ["com.a", "com.a.voip", "com.é", "", "com"]
        var topics = ["com.a", "com.ab", "com.a.", "com.é.voip", "com.a.voip.voip", "", ".voip", "com.a.voipx"]
        for suffix in PushType.knownSuffixes { topics += ["com.a" + suffix, "com" + suffix, "com.é" + suffix] }
        for topic in topics {
            let shape = PushType.TopicShape(of: topic)
            #expect(shape.isVoIP == topic.hasSuffix(".voip"), "topic <\(topic)>")
            for bundle in bundles {
                let expected = PushType.bundleId(ofTopic: topic) == bundle
                #expect(PushType.isTopic(topic, of: bundle) == expected, "topic <\(topic)> bundle <\(bundle)>")
                #expect(PushType.isTopic(topic, shape: shape, of: bundle) == expected, "shape, <\(topic)> <\(bundle)>")
            }
        }
        // A push whose topic is changed carries the new topic's shape.
        var push = AcceptedPush(
            deviceToken: "ab", topic: "com.a.voip", pushType: .voip, priority: .immediate, expiration: 0,
            collapseId: nil, keyId: nil, teamId: nil, isFirstValidToken: false)
        #expect(push.topicShape == PushType.TopicShape(of: "com.a.voip"))
        push.topic = "com.ab"
        #expect(push.topicShape == PushType.TopicShape(of: "com.ab") && !push.topicShape.isVoIP)
    }

    /// `serve --token-prefix` (docs/scaling.md): every token the world issues starts with the
    /// share's hex digits, and the rest still comes from the seed.
    @Test("A world with a token prefix issues every token with it, the rest from the seed")
    func tokenPrefix() {
        func tokens(_ prefix: String?) -> [String] {
            var settings = WorldSettings()
            settings.tokenPrefix = prefix
            let world = World(settings: settings, seed: 11)
            for index in 0..<50 { world.addPhone(name: "p\(index)", apps: [AppSpec(bundleId: "b")], at: 0) }
            return (0..<50).map { world.token(phone: $0, bundleId: "b", kind: .voip)! }
        }
        let plain = tokens(nil)
        #expect(!plain.allSatisfy { $0.hasPrefix("8") })
        for prefix in ["8", "a3", "0f1e2d3c"] {
            let shared = tokens(prefix)
            #expect(shared.allSatisfy { $0.hasPrefix(prefix) }, "\(prefix): \(shared.prefix(3))")
            #expect(zip(shared, plain).allSatisfy { $0.dropFirst(8) == $1.dropFirst(8) })
        }
        var wrong = WorldSettings()
        wrong.tokenPrefix = "xyz"
        #expect(wrong.problem?.contains("tokenPrefix") == true)
    }

    /// The throttle keeps request times only for tokens pushed within its window: a load over
    /// 70,000 phones, a push each a millisecond apart, forgets the first five seconds' tokens at its
    /// sweep (65,536 requests in), and the token
    /// pushed in the window is still throttled. Without the sweep every token pushed stays.
    @Test("The throttle forgets tokens quiet for its whole window, and still throttles the busy one")
    func throttleForgetsQuietTokens() {
        var settings = WorldSettings()
        settings.throttle = WorldSettings.Throttle(count: 2, window: 60)
        let world = World(settings: settings, seed: 4)
        let topic = "\(Self.bundle).voip"
        let phones = 70_000
        world.reserve(phones: phones)
        for index in 0..<phones { world.addPhone(name: "p\(index)", apps: [AppSpec(bundleId: Self.bundle)], at: t0) }
        let busy = world.token(phone: 0, bundleId: Self.bundle, kind: .voip)!
        for index in 0..<phones {
            let token = world.token(phone: index, bundleId: Self.bundle, kind: .voip)!
            _ = world.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + Double(index) / 1000)
        }
        let end = t0 + Double(phones) / 1000
        #expect(world.throttleTracked < phones - 5_000, "\(world.throttleTracked) tokens tracked")
        _ = world.lookup(token: busy, topic: topic, environment: .sandbox, at: end)
        _ = world.lookup(token: busy, topic: topic, environment: .sandbox, at: end)
        #expect(world.lookup(token: busy, topic: topic, environment: .sandbox, at: end) == .throttled)
    }
}
