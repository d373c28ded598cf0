import APNs
import Foundation
import Testing
import World

/// Random walks over the world's generations of remembered pushes (an adversary's test, issue 30):
/// pushes through `accept` and `admit` to live, retired and unknown tokens; phones offline and
/// online; apps reinstalled, rotated, removed and installed while pushes are pending; `keptPushes`
/// changed between 0 and 12. After each take, every push is told at most once and with the bundle
/// that held its token when it arrived, `pendingCount` matches, and every push not yet told is
/// still remembered and pending; at the end, every push was told. With the generation switch
/// counting no pending push in `older` (`World.forgetOldPushes`), it fails at once: a pending push
/// is lost.
@Suite struct WorldRandomWalkTests {
    @Test(
        "A random walk of pushes, phones, apps and kept-push limits: every push is told once, with the bundle that held its token, and is remembered while pending",
        arguments: Array(UInt64(1)...UInt64(300)))
    func randomWalk(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var settings = WorldSettings()
        settings.unregisterDelay = Double(Int.random(in: 0...2, using: &rng) * 20)
        settings.deliveryLatency = [0.05, 3, 40].randomElement(using: &rng)!
        settings.throttle = nil
        if Bool.random(using: &rng) { settings.keepStored = .oldest }
        let world = World(settings: settings, seed: seed)
        world.keptPushes = Int.random(in: 0...12, using: &rng)
        var t = 1_800_000_000.0
        let bundles = ["com.a", "com.b"]
        let behaviours: [AppBehaviour] = [
            .reportsAtOnce, .neverReports, .reportsAfterRoundTrip(seconds: 30, blocking: true),
            .reportsAfterRoundTrip(seconds: 3, blocking: true), .reportsAfterRoundTrip(seconds: 2, blocking: false),
        ]
        for p in 0..<3 {
            world.addPhone(
                name: "p\(p)", online: Bool.random(using: &rng),
                apps: bundles.map { AppSpec(bundleId: $0, behaviour: behaviours.randomElement(using: &rng)!) }, at: t)
        }
        var oldTokens: [(String, String)] = []  // (token, bundle)
        var expectedBundle: [Int: String?] = [:]
        var told: [Int: Int] = [:]
        var log: [String] = []
        func take() {
            for fate in world.takeFinished() {
                told[fate.number, default: 0] += 1
                #expect(
                    told[fate.number] == 1,
                    "told twice: \(fate.number) seed \(seed)\n\(log.suffix(30).joined(separator: "\n"))")
                if let expected = expectedBundle[fate.number] {
                    #expect(
                        fate.bundleId == expected,
                        "bundle of \(fate.number): \(String(describing: fate.bundleId)) vs \(String(describing: expected))"
                    )
                }
                #expect(fate.outcome != .pending)
            }
            let open = expectedBundle.keys.filter { told[$0] == nil }
            #expect(
                world.pendingCount == open.count, "pendingCount \(world.pendingCount) vs \(open.count) seed \(seed)")
            for number in open {
                let fate = world.fate(number)
                #expect(
                    fate != nil && fate?.outcome == .pending,
                    "pending push \(number) lost, seed \(seed)\n\(log.suffix(40).joined(separator: "\n"))")
            }
        }
        for step in 0..<400 {
            t += [0, 0.5, 1, 5, 20, 100].randomElement(using: &rng)!
            let phone = Int.random(in: 0..<3, using: &rng)
            let bundle = bundles.randomElement(using: &rng)!
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<50:
                var token: String?
                var expected: String?? = .some(bundle)
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<7: token = world.token(phone: phone, bundleId: bundle, kind: .voip)
                case 7..<9:
                    if let old = oldTokens.randomElement(using: &rng) {
                        token = old.0
                        expected = .some(old.1)
                    }
                default:
                    token = String(repeating: "ab", count: 32)
                    expected = .some(nil)
                }
                guard let token else { continue }
                let expiration: Int64? = [nil, 0, Int64(t) + 50, Int64(t) + 500].randomElement(using: &rng)!
                let accepted = AcceptedPush(
                    deviceToken: token, topic: "\(expected.flatMap { $0 } ?? bundle).voip", pushType: .voip,
                    priority: .immediate, expiration: expiration, collapseId: nil, keyId: nil, teamId: nil,
                    isFirstValidToken: false)
                let body = Array(
                    #"{"aps":{},"callUUID":"5f6c5d5e-0000-4000-8000-\#(String(format: "%012d", step))","handle":"x"}"#
                        .utf8)
                let number: Int
                if Bool.random(using: &rng) {
                    number = world.accept(accepted, environment: .sandbox, body: body, apnsId: "id-\(step)", at: t)
                } else {
                    let (answer, n) = world.admit(
                        accepted, token: TokenValue(hex: token), environment: .sandbox, call: CallInfo(body: body),
                        apnsId: "id-\(step)", acceptsUnknown: false, at: t)
                    guard let n else {
                        log.append("\(step) admit \(answer)")
                        continue
                    }
                    number = n
                }
                expectedBundle[number] = expected
                log.append(
                    "\(step) t=\(t) push #\(number) phone \(phone) \(bundle) exp \(String(describing: expiration))")
            case 50..<62:
                world.change(phone: phone, .online(Bool.random(using: &rng)), at: t)
                log.append("\(step) online toggle \(phone)")
            case 62..<72:
                let event: World.AppEvent = [.reinstall, .rotateToken, .uninstall].randomElement(using: &rng)!
                if let old = world.token(phone: phone, bundleId: bundle, kind: .voip) {
                    oldTokens.append((old, bundle))
                }
                world.apply(event, phone: phone, bundleId: bundle, at: t)
                log.append("\(step) \(event) \(phone) \(bundle)")
            case 72..<76:
                world.install(
                    AppSpec(bundleId: bundle, behaviour: behaviours.randomElement(using: &rng)!), phone: phone, at: t)
                log.append("\(step) install \(phone) \(bundle)")
            case 76..<82:
                world.keptPushes = Int.random(in: 0...12, using: &rng)
                log.append("\(step) kept \(world.keptPushes)")
            case 82..<92:
                world.run(until: t)
                log.append("\(step) run")
            default:
                world.run(until: t)
                take()
                log.append("\(step) take")
            }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                world.run(until: t)
                take()
            }
        }
        for p in 0..<3 { world.change(phone: p, .online(true), at: t) }
        for _ in 0..<5 {
            t += 40 * 86_400
            world.run(until: t)
            take()
        }
        let lost = expectedBundle.keys.filter { told[$0] == nil }.sorted()
        #expect(lost.isEmpty, "never told: \(lost) seed \(seed)")
    }
}
