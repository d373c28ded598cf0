import APNs
import Foundation
import Testing
import World

/// The world driven by hand: a manual clock (plain seconds), each rule and each outcome with its chain.
@Suite struct WorldTests {
    static let bundle = "com.ringside.testapp"
    let t0 = 1_800_000_000.0

    /// A world with one phone and one app; returns the world, the phone and its VoIP token.
    func world(
        _ behaviour: AppBehaviour = .reportsAtOnce, ios: OSVersion = OSVersion(18), online: Bool = true,
        settings: WorldSettings = WorldSettings(), seed: UInt64 = 7
    ) -> (World, Int, String) {
        let world = World(settings: settings, seed: seed)
        let phone = world.addPhone(
            name: "alice's iPhone", online: online,
            apps: [AppSpec(bundleId: Self.bundle, ios: ios, behaviour: behaviour)],
            at: t0)
        return (world, phone, world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!)
    }

    func push(
        _ world: World, token: String, at time: Double, expiration: Int64? = 0, priority: Priority = .immediate,
        call: String = "5f6c5d5e-0000-4000-8000-000000000001", caller: String? = "alice",
        topic: String = "\(bundle).voip", pushType: PushType? = .voip
    ) -> Int {
        let accepted = AcceptedPush(
            deviceToken: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseId: nil, keyId: nil, teamId: nil, isFirstValidToken: false)
        var body = #"{"aps":{},"callUUID":"\#(call)""#
        if let caller { body += #","handle":"\#(caller)""# }
        body += "}"
        return world.accept(accepted, environment: .sandbox, body: Array(body.utf8), apnsId: "id-\(time)", at: time)
    }

    @Test("A push built before the world's lock enters the world once: a second admission of it stops the process")
    func arrivingPushEntersOnce() async {
        await #expect(processExitsWith: .failure) {
            let world = World()
            let phone = world.addPhone(
                name: "alice's iPhone", online: true, apps: [AppSpec(bundleId: "com.ringside.testapp")], at: 0)
            let token = world.token(phone: phone, bundleId: "com.ringside.testapp", kind: .voip)!
            let push = AcceptedPush(
                deviceToken: token, topic: "com.ringside.testapp.voip", pushType: .voip, priority: .immediate,
                expiration: 0, collapseId: nil, keyId: nil, teamId: nil, isFirstValidToken: false)
            var arriving = ArrivingPush(push, call: CallInfo(body: []), apnsId: "a", at: 1)
            for _ in 0..<2 {
                _ = world.admit(
                    push, token: TokenValue(hex: token), environment: .sandbox, arriving: &arriving,
                    acceptsUnknown: false, at: 1)
            }
        }
    }

    @Test("A push to an online phone's VoIP token rings after the delivery latency")
    func rings() {
        let (world, _, token) = world()
        #expect(world.lookup(token: token, topic: "\(Self.bundle).voip", environment: .sandbox, at: t0) == .active)
        let number = push(world, token: token, at: t0)
        #expect(world.pushes[number].outcome == .pending)
        world.run(until: t0 + 1)
        #expect(
            world.pushes[number].outcome == .rang(callUUID: "5f6c5d5e-0000-4000-8000-000000000001", caller: "alice"))
        #expect(world.pushes[number].explanation.contains("the phone rings"))
        #expect(world.pushes[number].texts.first?.contains("APNs accepted") == true)
    }

    @Test(
        "Beyond keptPushes the oldest finished pushes are forgotten; a pending one is kept, and later events still play"
    )
    func boundedHistory() {
        let (world, phone, token) = world()
        world.keptPushes = 10
        world.change(phone: phone, .online(false), at: t0)
        let stored = push(world, token: token, at: t0, expiration: Int64(t0) + 3600)
        world.change(phone: phone, .online(true), at: t0 + 1)
        world.run(until: t0 + 2)
        let dead = String(repeating: "0f", count: 32)
        var numbers: [Int] = []
        for second in 0..<30 {
            numbers.append(
                push(
                    world, token: second == 29 ? token : dead, at: t0 + 3 + Double(second),
                    call: "5f6c5d5e-0000-4000-8000-0000000000\(10 + second)"))
            world.run(until: t0 + 3 + Double(second))
            _ = world.takeFinished()
        }
        #expect(world.pushes.count <= 10 + 1, "\(world.pushes.count) kept")
        #expect(world.forgotten > 0)
        // The number the mock asks for ahead (`OwedLines.prepare`) is the next push's, generations forgotten.
        let next = world.nextPushNumber
        #expect(push(world, token: dead, at: t0 + 40) == next)
        #expect(world.fate(numbers[0]) == nil, "an old finished push is forgotten")
        #expect(
            world.fate(stored)?.outcome.kind == "rang-late" || world.fate(stored)?.outcome.kind == "rang"
                || world.fate(stored) == nil)
        world.run(until: t0 + 60)
        #expect(world.fate(numbers[29])?.outcome.kind == "rang", "the latest push still plays out")
    }

    /// A push keeps its app's index from arrival to report while the phone's apps are laid out the
    /// same (`AppList.layout`); an app removed in between sends it back to the bundle id. A hint
    /// trusted across the change would hand app "a"'s push to app "b", now first, and ring.
    /// A world without a throttle, and one phone with apps "a" and "b": the phone and their VoIP tokens.
    func twoApps() -> (world: World, phone: Int, a: String, b: String) {
        var settings = WorldSettings()
        settings.throttle = nil
        let world = World(settings: settings, seed: 3)
        let phone = world.addPhone(name: "p", apps: [AppSpec(bundleId: "a"), AppSpec(bundleId: "b")], at: t0)
        return (
            world, phone, world.token(phone: phone, bundleId: "a", kind: .voip)!,
            world.token(phone: phone, bundleId: "b", kind: .voip)!
        )
    }

    @Test("An app removed before its push arrives gets nothing, though another app now sits where it was")
    func appRemovedBeforeArrival() {
        let (world, phone, a, b) = twoApps()
        let toA = push(world, token: a, at: t0, call: Self.call(1), topic: "a.voip")
        let toB = push(world, token: b, at: t0, call: Self.call(2), topic: "b.voip")
        world.apply(.uninstall, phone: phone, bundleId: "a", at: t0)
        world.run(until: t0 + 1)
        #expect(world.fate(toA)?.outcome.kind != "rang", "\(String(describing: world.fate(toA)?.outcome))")
        #expect(world.fate(toB)?.outcome.kind == "rang", "\(String(describing: world.fate(toB)?.outcome))")
    }

    @Test(
        "An app deleted while it holds a push (a round trip before its report) ends the push: not delivered, not pending",
        arguments: [(OSVersion(12), 3.0), (OSVersion(26, 4), 30.0)])
    func appDeletedWhileHoldingThePush(ios: OSVersion, roundTrip: Double) {
        var settings = WorldSettings()
        settings.throttle = nil
        let world = World(settings: settings, seed: 4)
        let app = AppSpec(
            bundleId: Self.bundle, ios: ios, behaviour: .reportsAfterRoundTrip(seconds: roundTrip, blocking: true))
        let phone = world.addPhone(name: "hal", apps: [app], at: t0)
        let token = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
        let number = push(world, token: token, at: t0, call: Self.call(7))
        world.run(until: t0 + 1)
        #expect(world.fate(number)?.explanation.contains("round trip") == true, "arrived, the app holds it")
        world.apply(.uninstall, phone: phone, bundleId: Self.bundle, at: t0 + 1)
        world.run(until: t0 + roundTrip + 10)
        // The report (iOS 12, 3 s) or the system check (7 s) comes due with no app to find.
        #expect(
            world.fate(number)?.outcome == .notDelivered(.appNotInstalled), "\(String(describing: world.fate(number)))")
        #expect(world.pendingCount == 0)
    }

    @Test(
        "Forgetting hands the old pushes' objects out (takeForgotten) and leaves every remembered push its own ids, token and call"
    )
    func forgettingKeepsTheRemembered() throws {
        let (world, phone, token) = world()
        world.keptPushes = 10
        world.change(phone: phone, .online(false), at: t0)
        let stored = push(world, token: token, at: t0, expiration: Int64(t0) + 30 * 86_400, call: Self.call(0))
        var handedOut = 0
        for second in 1...35 {
            _ = push(world, token: token, at: t0 + Double(second), call: Self.call(second))
            world.run(until: t0 + Double(second))
            _ = world.takeFinished()
            let forgotten = world.takeForgotten()
            handedOut += forgotten.count
            #expect(world.takeForgotten().count == 0, "taken once")
        }
        #expect(world.forgotten > 0 && handedOut == world.forgotten, "\(handedOut) of \(world.forgotten)")
        let remembered = world.pushes
        #expect(remembered.count > 1 && remembered.first?.number == stored)
        for fate in remembered {
            let second = Int(fate.sentAt - t0)
            #expect(fate.apnsId == "id-\(t0 + Double(second))", "push \(fate.number)")
            #expect(fate.token == token && fate.topic == "\(Self.bundle).voip")
            #expect(fate.callUUID == Self.call(second) && fate.caller == "alice")
        }
    }

    static func call(_ index: Int) -> String { "5f6c5d5e-0000-4000-8000-\(String(format: "%012d", index))" }

    @Test(
        "A push stored for an offline phone does not hold the history: older finished pushes are forgotten around it, and it rings once the phone is back"
    )
    func pendingPushDoesNotHoldHistory() {
        let (world, phone, token) = world()
        world.keptPushes = 10
        let other = world.addPhone(name: "bob", apps: [AppSpec(bundleId: Self.bundle)], at: t0)
        let otherToken = world.token(phone: other, bundleId: Self.bundle, kind: .voip)!
        world.change(phone: phone, .online(false), at: t0)
        let stored = push(world, token: token, at: t0, expiration: Int64(t0) + 30 * 86_400)
        for second in 1...200 {
            _ = push(
                world, token: otherToken, at: t0 + Double(second),
                call: "5f6c5d5e-0000-4000-8000-\(String(format: "%012d", second))")
            world.run(until: t0 + Double(second))
            _ = world.takeFinished()
        }
        #expect(world.rememberedCount <= 10 + 2, "\(world.rememberedCount) remembered")
        #expect(world.fate(stored)?.outcome == .pending, "the stored push is kept aside")
        #expect(world.pushes.first?.number == stored, "oldest first")
        #expect(world.remembered(0..<1).first?.number == stored)
        world.change(phone: phone, .online(true), at: t0 + 300)
        world.run(until: t0 + 301)
        let finished = world.takeFinished()
        #expect(finished.first { $0.number == stored }?.outcome.kind == "rang-late")
        #expect(world.fate(stored) == nil, "once finished and reported, it is forgotten too")
    }

    @Test("The world follows at most maximumPending pushes at once: past it, 503 until some finish")
    func pendingBounded() {
        var settings = WorldSettings()
        settings.deliveryLatency = 3600
        settings.throttle = nil
        let (world, _, token) = world(settings: settings)
        world.maximumPending = 5
        let topic = "\(Self.bundle).voip"
        for second in 0..<5 {
            #expect(world.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + Double(second)) == .active)
            _ = push(world, token: token, at: t0 + Double(second))
        }
        #expect(world.pendingCount == 5)
        #expect(world.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + 10) == .full)
        world.run(until: t0 + 3600 + 5)
        _ = world.takeFinished()
        #expect(world.pendingCount == 0)
        #expect(world.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + 3610) == .active)
    }

    @Test("The wrong token kind or environment gets APNs' answers")
    func tokenKinds() {
        let (world, phone, voip) = world()
        let alert = world.token(phone: phone, bundleId: Self.bundle, kind: .alert)!
        #expect(world.lookup(token: alert, topic: "\(Self.bundle).voip", environment: .sandbox, at: t0) == .notForTopic)
        #expect(world.lookup(token: voip, topic: Self.bundle, environment: .sandbox, at: t0) == .topicDisallowed)
        #expect(world.lookup(token: voip, topic: "\(Self.bundle).voip", environment: .production, at: t0) == .unknown)
        #expect(world.lookup(token: voip, topic: "com.other.app.voip", environment: .sandbox, at: t0) == .notForTopic)
        #expect(
            world.lookup(
                token: String(repeating: "0", count: 64), topic: "\(Self.bundle).voip", environment: .sandbox, at: t0)
                == .unknown)
    }

    @Test(
        "After a reinstall the old token answers 200 for the configured time, rings nothing, then 410 with the uninstall time"
    )
    func reinstall() {
        var settings = WorldSettings()
        settings.unregisterDelay = 600
        let (world, phone, old) = world(settings: settings)
        world.apply(.reinstall, phone: phone, bundleId: Self.bundle, at: t0 + 10)
        let new = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
        #expect(new != old)
        #expect(world.lookup(token: old, topic: "\(Self.bundle).voip", environment: .sandbox, at: t0 + 20) == .active)
        let ghost = push(world, token: old, at: t0 + 20)
        world.run(until: t0 + 30)
        #expect(world.pushes[ghost].outcome == .notDelivered(.tokenDead))
        #expect(
            world.lookup(token: old, topic: "\(Self.bundle).voip", environment: .sandbox, at: t0 + 611)
                == .unregistered(sinceMilliseconds: Int64((t0 + 10) * 1000)))
        let good = push(world, token: new, at: t0 + 611)
        world.run(until: t0 + 612)
        #expect(world.pushes[good].outcome.kind == "rang")
    }

    @Test("Offline with apns-expiration 0: not stored, not delivered")
    func offlineExpirationZero() {
        let (world, phone, token) = world(online: false)
        let number = push(world, token: token, at: t0, expiration: 0)
        world.change(phone: phone, .online(true), at: t0 + 5)
        world.run(until: t0 + 10)
        #expect(world.pushes[number].outcome == .notDelivered(.offlineNotStored))
        #expect(world.pushes[number].explanation.contains("does not store"))
    }

    @Test("Offline with an expiration an hour ahead, back online after the call is over: rang late (a ghost call)")
    func ghostCall() {
        let (world, phone, token) = world(online: false)
        let number = push(world, token: token, at: t0, expiration: Int64(t0) + 3600)
        world.run(until: t0 + 120)
        #expect(world.pushes[number].outcome == .pending)
        world.change(phone: phone, .online(true), at: t0 + 120)
        world.run(until: t0 + 121)
        guard case .rangLate(_, _, let lateBy) = world.pushes[number].outcome else {
            Issue.record("expected rang late, got \(world.pushes[number].outcome)")
            return
        }
        #expect(lateBy > 100)
        #expect(world.pushes[number].explanation.contains("ghost call"))
    }

    @Test("APNs stores one push per app while offline: the latest wins, the stored one can expire")
    func storeAndForward() {
        let (world, phone, token) = world(online: false)
        let first = push(world, token: token, at: t0, expiration: nil, call: "call-1")
        let second = push(world, token: token, at: t0 + 1, expiration: Int64(t0) + 100, call: "call-2")
        #expect(world.pushes[first].outcome == .notDelivered(.replacedWhileStored))
        world.run(until: t0 + 200)
        #expect(world.pushes[second].outcome == .notDelivered(.expired))
        world.change(phone: phone, .online(true), at: t0 + 300)
        world.run(until: t0 + 301)
        #expect(world.pushes[second].outcome == .notDelivered(.expired))
    }

    @Test("An app that never reports is killed; after the configured count VoIP delivery stops until reinstall")
    func neverReports() {
        var settings = WorldSettings()
        settings.unreportedLimit = 2
        let (world, phone, token) = world(.neverReports, settings: settings)
        let first = push(world, token: token, at: t0, call: "a")
        let second = push(world, token: token, at: t0 + 10, call: "b")
        world.run(until: t0 + 20)
        #expect(world.pushes[first].outcome == .appKilled(.delegateReturnedWithoutReport))
        #expect(world.pushes[first].explanation.contains("Killing app because it never posted an incoming call"))
        #expect(world.pushes[second].outcome == .appKilled(.delegateReturnedWithoutReport))
        #expect(world.pushes[second].explanation.contains("stops delivering VoIP pushes"))
        let third = push(world, token: token, at: t0 + 30, call: "c")
        world.run(until: t0 + 31)
        #expect(world.pushes[third].outcome == .notDelivered(.appBlocked))
        world.apply(.reinstall, phone: phone, bundleId: Self.bundle, at: t0 + 40)
        #expect(world.phones[phone].app(Self.bundle)?.isVoIPBlocked == false)
    }

    @Test(
        "A blocking network round trip rings when shorter than the ~7 s check, is killed with 0xbaadca11 when longer; an async one is killed at once"
    )
    func roundTrips() {
        let (short, _, shortToken) = world(.reportsAfterRoundTrip(seconds: 2, blocking: true))
        let a = push(short, token: shortToken, at: t0)
        short.run(until: t0 + 1)
        #expect(short.pushes[a].outcome == .pending)
        short.run(until: t0 + 3)
        #expect(short.pushes[a].outcome.kind == "rang")
        let (long, _, longToken) = world(.reportsAfterRoundTrip(seconds: 10, blocking: true))
        let b = push(long, token: longToken, at: t0)
        long.run(until: t0 + 20)
        #expect(long.pushes[b].outcome == .appKilled(.callServicesCheck))
        #expect(long.pushes[b].finishedAt == t0 + 0.05 + 7)
        #expect(long.pushes[b].explanation.contains("0xbaadca11"))
        let (async, _, asyncToken) = world(.reportsAfterRoundTrip(seconds: 1, blocking: false))
        let c = push(async, token: asyncToken, at: t0)
        async.run(until: t0 + 5)
        #expect(async.pushes[c].outcome == .appKilled(.delegateReturnedWithoutReport))
    }

    @Test("CallKit refusals: Do Not Disturb (VIPs pass), a blocked caller, a duplicate call id, no entitlement")
    func callKit() {
        let (world, phone, token) = world()
        world.change(phone: phone, .doNotDisturb(true), at: t0)
        let dnd = push(world, token: token, at: t0, call: "c1", caller: "bob")
        world.run(until: t0 + 1)
        #expect(world.pushes[dnd].outcome == .callRefused(.filteredByDoNotDisturb))
        world.change(phone: phone, .vipCallers(["carol"]), at: t0 + 1)
        let vip = push(world, token: token, at: t0 + 2, call: "c2", caller: "carol")
        world.run(until: t0 + 3)
        #expect(world.pushes[vip].outcome.kind == "rang")
        world.change(phone: phone, .doNotDisturb(false), at: t0 + 3)
        world.change(phone: phone, .blockedCallers(["mallory"]), at: t0 + 3)
        let blocked = push(world, token: token, at: t0 + 4, call: "c3", caller: "mallory")
        let again = push(world, token: token, at: t0 + 4, call: "c2", caller: "carol")
        world.run(until: t0 + 5)
        #expect(world.pushes[blocked].outcome == .callRefused(.filteredByBlockList))
        #expect(world.pushes[again].outcome == .duplicate(callUUID: "c2"))
    }

    @Test("No report is required in the foreground, during a call, on iOS 12, or (iOS 26.4) after a long network delay")
    func mustReportFalse() {
        let (foreground, phone, token) = world(.neverReports)
        foreground.apply(.foreground, phone: phone, bundleId: Self.bundle, at: t0)
        let a = push(foreground, token: token, at: t0)
        foreground.run(until: t0 + 1)
        #expect(foreground.pushes[a].outcome == .notDelivered(.notReportedAllowed))
        let (onCall, callPhone, callToken) = world(.neverReports)
        onCall.change(phone: callPhone, .activeCall("other"), at: t0)
        let b = push(onCall, token: callToken, at: t0)
        onCall.run(until: t0 + 1)
        #expect(onCall.pushes[b].outcome == .notDelivered(.notReportedAllowed))
        let (old, _, oldToken) = world(.neverReports, ios: OSVersion(12))
        let c = push(old, token: oldToken, at: t0)
        old.run(until: t0 + 1)
        #expect(old.pushes[c].outcome == .notDelivered(.notReportedAllowed))
        let (delayed, delayedPhone, delayedToken) = world(.neverReports, ios: OSVersion(26, 4), online: false)
        let d = push(delayed, token: delayedToken, at: t0, expiration: nil)
        delayed.change(phone: delayedPhone, .online(true), at: t0 + 60)
        delayed.run(until: t0 + 61)
        #expect(delayed.pushes[d].outcome == .notDelivered(.notReportedAllowed))
        #expect(delayed.pushes[d].explanation.contains("metadata.mustReport is false"))
    }

    @Test("Payload-picky and completion-first apps")
    func otherProfiles() {
        let (picky, _, pickyToken) = world(.reportsOnlyWellFormed)
        let bad = push(picky, token: pickyToken, at: t0, caller: nil)
        picky.run(until: t0 + 1)
        #expect(picky.pushes[bad].outcome == .appKilled(.delegateReturnedWithoutReport))
        let (completes, _, completesToken) = world(.completesBeforeReporting)
        let ok = push(completes, token: completesToken, at: t0)
        completes.run(until: t0 + 1)
        #expect(completes.pushes[ok].outcome.kind == "rang")
        #expect(completes.pushes[ok].explanation.contains("completion handler"))
    }

    @Test("429 per token once the throttle's count is passed within its window")
    func throttle() {
        var settings = WorldSettings()
        settings.throttle = .init(count: 3, window: 10)
        let (world, _, token) = world(settings: settings)
        let topic = "\(Self.bundle).voip"
        let answers = (0..<4).map {
            world.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + Double($0))
        }
        #expect(answers == [.active, .active, .active, .throttled])
        #expect(world.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + 20) == .active)
    }

    @Test("Folklore rules are off by default and say so in the chain when on")
    func folklore() {
        let (plain, plainPhone, plainToken) = world()
        plain.apply(.forceQuit, phone: plainPhone, bundleId: Self.bundle, at: t0)
        let a = push(plain, token: plainToken, at: t0)
        plain.run(until: t0 + 1)
        #expect(plain.pushes[a].outcome.kind == "rang")
        var settings = WorldSettings()
        settings.folklore.forceQuitBlocksVoIP = true
        settings.folklore.dailyVoIPBudget = 1
        settings.folklore.deadTokenPenalty = 2
        let (strict, phone, token) = world(settings: settings)
        let first = push(strict, token: token, at: t0, call: "x1")
        strict.run(until: t0 + 1)
        let second = push(strict, token: token, at: t0 + 2, call: "x2")
        strict.run(until: t0 + 3)
        #expect(strict.pushes[first].outcome.kind == "rang")
        #expect(strict.pushes[second].outcome == .notDelivered(.dailyBudget))
        #expect(strict.pushes[second].folkloreUsed == ["daily-voip-budget"])
        strict.apply(.forceQuit, phone: phone, bundleId: Self.bundle, at: t0 + 86_400)
        let third = push(strict, token: token, at: t0 + 86_400, call: "x3")
        strict.run(until: t0 + 86_401)
        #expect(strict.pushes[third].folkloreUsed == ["force-quit-blocks-voip"])
        strict.apply(.uninstall, phone: phone, bundleId: Self.bundle, at: t0 + 86_402)
        let topic = "\(Self.bundle).voip"
        _ = strict.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + 86_403)
        _ = strict.lookup(token: token, topic: topic, environment: .sandbox, at: t0 + 86_404)
        #expect(strict.isPenalized(bundleId: Self.bundle, at: t0 + 86_405))
        let other = strict.addPhone(name: "bob", apps: [AppSpec(bundleId: Self.bundle)], at: t0 + 86_405)
        let fresh = strict.token(phone: other, bundleId: Self.bundle, kind: .voip)!
        #expect(strict.lookup(token: fresh, topic: topic, environment: .sandbox, at: t0 + 86_406) == .penalized)
    }

    @Test("Same seed, same tokens and outcomes; another seed, other tokens")
    func deterministic() {
        func story(seed: UInt64) -> ([String], [String]) {
            let (world, phone, token) = world(.neverReports, seed: seed)
            _ = push(world, token: token, at: t0)
            world.run(until: t0 + 10)
            world.apply(.reinstall, phone: phone, bundleId: Self.bundle, at: t0 + 20)
            let fresh = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
            return ([token, fresh], world.pushes.map { "\($0.outcome.kind) \($0.explanation)" })
        }
        #expect(story(seed: 42) == story(seed: 42))
        #expect(story(seed: 42).0 != story(seed: 43).0)
    }

    @Test("Tokens are issued with the configured length")
    func tokenLength() {
        var settings = WorldSettings()
        settings.tokenBytes = 80
        let (_, _, token) = world(settings: settings)
        #expect(token.count == 160)
        #expect(TokenValue(hex: token)?.description == token)
    }

    /// The mock asks `admit` (one search for the token) where it asked `lookup`, then `accept`: the
    /// two must agree on every kind of token, and take the push in the same way.
    @Test(
        "admit answers as lookup then accept, for live, retired, unknown, malformed and other-kind tokens",
        arguments: [false, true])
    func admitAgreesWithLookupThenAccept(acceptsUnknown: Bool) {
        func world() -> (World, [String]) {
            var settings = WorldSettings()
            settings.unregisterDelay = 5
            settings.throttle = nil
            let world = World(settings: settings, seed: 3)
            let phone = world.addPhone(name: "alice", apps: [AppSpec(bundleId: Self.bundle)], at: t0)
            let voip = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
            let alert = world.token(phone: phone, bundleId: Self.bundle, kind: .alert)!
            world.apply(.reinstall, phone: phone, bundleId: Self.bundle, at: t0)
            let fresh = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
            let offline = world.addPhone(name: "bob", online: false, apps: [AppSpec(bundleId: Self.bundle)], at: t0)
            let stored = world.token(phone: offline, bundleId: Self.bundle, kind: .voip)!
            let tokens = [fresh, voip, alert, stored, String(repeating: "0f", count: 32), "zz", fresh.uppercased()]
            return (world, tokens)
        }
        let (viaAdmit, tokens) = world()
        let (viaTwo, _) = world()
        for (index, token) in tokens.enumerated() {
            for topic in ["\(Self.bundle).voip", Self.bundle, "com.other.voip"] {
                for at in [t0 + 1, t0 + 10] {
                    let push = AcceptedPush(
                        deviceToken: token, topic: topic, pushType: .voip, priority: .immediate,
                        expiration: 3_600, collapseId: nil, keyId: nil, teamId: nil, isFirstValidToken: false)
                    let call = CallInfo(body: Array(#"{"callUUID":"c\#(index)\#(topic)\#(at)"}"#.utf8))
                    let (answer, number) = viaAdmit.admit(
                        push, token: TokenValue(hex: token), environment: .sandbox, call: call, apnsId: "a",
                        acceptsUnknown: acceptsUnknown, at: at)
                    var expected = viaTwo.lookup(token: token, topic: topic, environment: .sandbox, at: at)
                    if expected == .unknown, acceptsUnknown { expected = .active }
                    var expectedNumber: Int?
                    if expected == .active, !(acceptsUnknown && !viaTwo.knows(token: token, environment: .sandbox)) {
                        expectedNumber = viaTwo.accept(push, environment: .sandbox, call: call, apnsId: "a", at: at)
                    }
                    #expect(answer == expected, "token \(index) topic \(topic) at \(at)")
                    #expect(number == expectedNumber, "token \(index) topic \(topic) at \(at)")
                }
            }
        }
        viaAdmit.run(until: t0 + 100)
        viaTwo.run(until: t0 + 100)
        #expect(
            viaAdmit.pushes.map { "\($0.number) \($0.outcome.kind) \($0.phone ?? -1)" }
                == viaTwo.pushes.map { "\($0.number) \($0.outcome.kind) \($0.phone ?? -1)" })
        #expect(!viaAdmit.pushes.isEmpty)
    }

    /// JSON escapes in the payload decode as JSON's (RFC 8259 §7): Python's `json.dumps` writes
    /// "Zoë" as `Zo\u00eb` by default, and the block list says "Zoë".
    @Test(
        "A payload's escapes are decoded: \\u with surrogate pairs, \\r \\b \\f \\/, keys too; broken ones kept",
        arguments: [
            (#"{"callUUID":"c1","handle":"Zo\u00eb"}"#, "c1", "Zoë"),
            (#"{"call\u0055UID":"c2","caller":"\ud83d\udcde \u260E"}"#, "c2", "📞 ☎"),
            (#"{"uuid":"a\/b","from":"x\r\b\f\ty"}"#, "a/b", "x\r\u{8}\u{C}\ty"),
            (#"{"callId":"\ud800z","caller_id":"\udc00"}"#, "\u{FFFD}z", "\u{FFFD}"),
            (#"{"call_id":"\u12","handle":"\u00"}"#, "\\u12", "\\u00"),
            (#"{"callID":"\"q\" \\ e"}"#, "\"q\" \\ e", nil),
        ])
    func payloadEscapes(body: String, uuid: String, caller: String?) {
        let call = CallInfo(body: Array(body.utf8))
        #expect(call.uuid == uuid, "\(body)")
        #expect(call.caller == caller, "\(body)")
    }

    @Test("A caller written with \\u escapes is the caller a block list names")
    func escapedCallerIsBlocked() {
        let (world, phone, token) = world()
        world.change(phone: phone, .blockedCallers(["Zoë"]), at: t0)
        let number = push(world, token: token, at: t0, call: "c9", caller: #"Zo\u00eb"#)
        world.run(until: t0 + 10)
        #expect(world.pushes[number].outcome == .callRefused(.filteredByBlockList), "\(world.pushes[number].outcome)")
    }

    /// `tokenBytes` goes down to 1 (`POST /settings`): a token shorter than a word's offset once
    /// trapped in `TokenValue(bytes:)`, and with it `serve` on the next `POST /phones`.
    @Test("Short tokens are issued and found", arguments: [1, 7, 8, 9, 16, 23, 24, 31, 32, 33])
    func shortTokens(bytes: Int) {
        var settings = WorldSettings()
        settings.tokenBytes = bytes
        let (world, _, token) = world(settings: settings)
        #expect(token.count == 2 * bytes)
        #expect(TokenValue(hex: token)?.description == token)
        #expect(TokenValue(bytes: TokenValue(hex: token)!.bytes) == TokenValue(hex: token))
        #expect(world.lookup(token: token, topic: "\(Self.bundle).voip", environment: .sandbox, at: 0) == .active)
    }

    @Test(
        "A VoIP push at priority 5 or 1, or without apns-push-type, is missed by default and rings with wrongPushesDelivered"
    )
    func wrongPushesMissed() {
        let (world, _, token) = world()
        let five = push(world, token: token, at: t0, priority: .considerPower, call: Self.call(1))
        let one = push(world, token: token, at: t0, priority: .powerFirst, call: Self.call(2))
        let untyped = push(world, token: token, at: t0, call: Self.call(3), pushType: nil)
        let right = push(world, token: token, at: t0, call: Self.call(4))
        world.run(until: t0 + 1)
        #expect(world.pushes[five].outcome == .notDelivered(.lowPriority))
        #expect(world.pushes[five].chain.last?.step.rule == .lowPriorityMissed)
        #expect(world.pushes[five].explanation.contains("apns-priority 5"))
        #expect(world.pushes[one].outcome == .notDelivered(.lowPriority))
        #expect(world.pushes[untyped].outcome == .notDelivered(.noPushType))
        #expect(world.pushes[untyped].chain.last?.step.rule == .noPushTypeMissed)
        #expect(world.pushes[right].outcome.kind == "rang")
        var settings = WorldSettings()
        settings.wrongPushesDelivered = true
        let (lenient, _, lenientToken) = self.world(settings: settings)
        let numbers = [
            push(lenient, token: lenientToken, at: t0, priority: .considerPower, call: Self.call(1)),
            push(lenient, token: lenientToken, at: t0, priority: .powerFirst, call: Self.call(2)),
            push(lenient, token: lenientToken, at: t0, call: Self.call(3), pushType: nil),
        ]
        lenient.run(until: t0 + 1)
        for number in numbers { #expect(lenient.pushes[number].outcome.kind == "rang") }
    }

    @Test("A push in flight to the old token of an app uninstalled and installed again, or reinstalled, rings nothing")
    func inFlightToOldToken() {
        var settings = WorldSettings()
        settings.deliveryLatency = 5
        let (world, phone, old) = world(settings: settings)
        let inFlight = push(world, token: old, at: t0, call: Self.call(1))
        world.apply(.uninstall, phone: phone, bundleId: Self.bundle, at: t0 + 1)
        world.install(AppSpec(bundleId: Self.bundle), phone: phone, at: t0 + 2)
        let new = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
        world.run(until: t0 + 10)
        #expect(world.pushes[inFlight].outcome == .notDelivered(.tokenDead))
        #expect(world.pushes[inFlight].chain.last?.step == .tokenRetired)
        let second = push(world, token: new, at: t0 + 20, call: Self.call(2))
        world.apply(.reinstall, phone: phone, bundleId: Self.bundle, at: t0 + 21)
        world.run(until: t0 + 30)
        #expect(world.pushes[second].outcome == .notDelivered(.tokenDead))
        let newest = world.token(phone: phone, bundleId: Self.bundle, kind: .voip)!
        let third = push(world, token: newest, at: t0 + 40, call: Self.call(3))
        world.run(until: t0 + 50)
        #expect(world.pushes[third].outcome.kind == "rang")
    }

    @Test("Duplicate call ids are per app (each CXProvider), in any case")
    func duplicatesPerApp() {
        let (world, _, a, b) = twoApps()
        let toA = push(world, token: a, at: t0, call: Self.call(1), topic: "a.voip")
        let toB = push(world, token: b, at: t0, call: Self.call(1), topic: "b.voip")
        let againA = push(world, token: a, at: t0 + 1, call: Self.call(1).uppercased(), topic: "a.voip")
        world.run(until: t0 + 2)
        #expect(world.pushes[toA].outcome.kind == "rang")
        #expect(world.pushes[toB].outcome.kind == "rang", "another app's CXProvider does not know app a's call")
        #expect(world.pushes[againA].outcome.kind == "duplicate", "the same UUID in upper case is the same call")
    }

    @Test("A ring is late from when the call was placed (any case), not from when APNs accepted the push")
    func lateFromPlacement() {
        var settings = WorldSettings()
        settings.ringTimeout = 1
        let (world, _, token) = world(settings: settings)
        world.callPlaced(uuid: Self.call(1).uppercased(), at: t0)
        let queued = push(world, token: token, at: t0 + 3, call: Self.call(1))
        let unknown = push(world, token: token, at: t0 + 3, call: Self.call(2))
        world.run(until: t0 + 4)
        guard case .rangLate(_, _, let lateBy) = world.pushes[queued].outcome else {
            Issue.record("expected rang late, got \(world.pushes[queued].outcome)")
            return
        }
        #expect(abs(lateBy - 3.05) < 0.001)
        #expect(world.pushes[unknown].outcome.kind == "rang", "a call never placed is timed from the push")
    }

    @Test("reports-only-well-formed does not report a call id that is missing, empty or not a UUID")
    func wellFormedNeedsUUID() {
        for call in ["", "not-a-uuid", "5f6c5d5e-0000-4000-8000-00000000000", "5f6c5d5e-0000-4000-8000-00000000000g"] {
            let (world, _, token) = world(.reportsOnlyWellFormed)
            let number = push(world, token: token, at: t0, call: call)
            world.run(until: t0 + 1)
            #expect(world.pushes[number].outcome == .appKilled(.delegateReturnedWithoutReport), "call id <\(call)>")
        }
        let (world, _, token) = world(.reportsOnlyWellFormed)
        let missing = world.accept(
            AcceptedPush(
                deviceToken: token, topic: "\(Self.bundle).voip", pushType: .voip, priority: .immediate,
                expiration: 0, collapseId: nil, keyId: nil, teamId: nil, isFirstValidToken: false),
            environment: .sandbox, body: Array(#"{"aps":{},"handle":"bob"}"#.utf8), apnsId: "m", at: t0)
        let upper = push(world, token: token, at: t0, call: Self.call(9).uppercased())
        world.run(until: t0 + 1)
        #expect(world.pushes[missing].outcome == .appKilled(.delegateReturnedWithoutReport))
        #expect(world.pushes[upper].outcome.kind == "rang")
    }
}
