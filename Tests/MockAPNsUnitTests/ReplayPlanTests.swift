import APNs
import Foundation
import TestSupport
import Testing
import World

@testable import HTTP2Server
@testable import MockAPNs

/// A replay (`ringside replay`, `ReplayPlan`) through the connection's state machine: recorded
/// answers are its inputs, and a long transcript is read as the requests arrive. Moved out of
/// ConnectionStateMachineTests: the 10,000-request window tests set the unit run's tail.
@Suite struct ReplayPlanTests {
    typealias Machine = ConnectionStateMachineTests

    /// The replay is an input: the recorded answer comes in with when the device token died in this
    /// run's world, which a replayed 410 gives as its timestamp; a recorded 200 the rules refuse now
    /// is said as an action (`replayDiffers`), for the executor to tell the replay.
    @Test func aReplayedAnswerIsAnInput() {
        var machine = Machine.machine(replay: ReplayPlan(exchanges: [])).machine
        var actions: [ConnectionAction] = []
        let now = SystemClock().now()
        guard case .replay = machine.receive(Machine.push(stream: 1), rules: .init(), at: now, into: &actions) else {
            Issue.record("a replaying machine asks for the recorded answer")
            return
        }
        var gone = ReplayPlan.Exchange(request: [:], status: 410, reason: .unregistered, timestamp: 5, apnsId: nil)
        gone.judgedByTheRules = false
        _ = machine.replayed(gone, retiredAt: 1_800_000_000_000, at: now, into: &actions)
        let timestamps = actions.compactMap { action -> Int64? in
            if case .record(_, _, let rejection?, _, _) = action { return rejection.timestamp } else { return nil }
        }
        #expect(timestamps == [1_800_000_000_000])
        actions.removeAll()
        let accepted = ReplayPlan.Exchange(request: [:], status: 200, reason: nil, timestamp: nil, apnsId: nil)
        _ = machine.receive(Machine.push(stream: 3, token: "zz"), rules: .init(), at: now, into: &actions)
        _ = machine.replayed(accepted, retiredAt: nil, at: now, into: &actions)
        #expect(Machine.describe(actions).prefix(2) == ["event settings 1000", "raise 1000"])
        #expect(Machine.describe(actions).contains("replay differs BadDeviceToken"))
    }

    /// A replayed refusal keeps the recorded answer, and its JWT is judged as the recorded run judged
    /// it: a valid one raises the limit. An answer the fault plan gave before the rules judges nothing.
    @Test func aReplayedRefusalJudgesTheJWTAsTheRecordingDid() throws {
        func replay(fault: String?) throws -> ReplayPlan {
            var line: [String: Any] = [
                "event": "push", "status": 410, "reason": "Unregistered",
                "request": [
                    ":method": "POST", ":path": "/3/device/\(Paths.voipToken)", "apns-topic": Paths.topic,
                    "apns-push-type": "voip", "authorization": "bearer x", "body": Machine.body,
                ],
            ]
            line["fault"] = fault
            let text = String(decoding: try JSONSerialization.data(withJSONObject: line), as: UTF8.self)
            return ReplayPlan.parse(transcript: text)
        }
        var judged = Machine.machine(replay: try replay(fault: nil))
        #expect(
            Machine.decide(&judged, Machine.push(stream: 1)) == [
                "event settings 1000", "raise 1000", "respond 1 410 ids 2 after 0.0", "record 410 Unregistered",
            ])
        var armed = Machine.machine(replay: try replay(fault: ConnectionStateMachine.armedFault))
        #expect(Machine.decide(&armed, Machine.push(stream: 1)) == ["respond 1 410 ids 2", "record 410 Unregistered"])
    }

    /// A replay reads its transcript as the requests arrive (issue 27): loading a long one reads
    /// `lookahead` ahead and no more, a matched request lets its exchange go and one more is read, and
    /// a request that matches none is the difference without reading further. Reading the whole file
    /// at load held all 25,000.
    @Test func aReplayHoldsAWindowNotTheTranscript() throws {
        let path = NSTemporaryDirectory() + "ringside-long-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let line: [String: Any] = [
            "event": "push", "status": 200,
            "request": [
                ":method": "POST", ":path": "/3/device/\(Paths.voipToken)", "apns-topic": Paths.topic,
                "apns-push-type": "voip", "authorization": "bearer x", "body": Machine.body,
            ],
        ]
        let text = String(decoding: try JSONSerialization.data(withJSONObject: line), as: UTF8.self) + "\n"
        let recorded = ReplayPlan.lookahead * 5 / 2
        try String(repeating: text, count: recorded).write(toFile: path, atomically: false, encoding: .utf8)
        let plan = try ReplayPlan.load(transcript: path)
        #expect(plan.held == ReplayPlan.lookahead && plan.missing == recorded)
        var machine = Machine.machine(replay: plan)
        #expect(Machine.decide(&machine, Machine.push(stream: 1)).contains("respond 1 200 ids 2 after 0.0"))
        #expect(plan.held == ReplayPlan.lookahead && plan.missing == recorded - 1)
        let second = Machine.decide(&machine, Machine.push(stream: 3, token: String(repeating: "cd", count: 32)))
        #expect(plan.difference?.field == ":path", "\(second)")
        #expect(plan.held == ReplayPlan.lookahead)
    }

    /// The window counts recorded requests not yet answered (the adversary's finding): one recorded
    /// request the run never makes does not stop the window after 10,000 more; a transcript that
    /// ends early while it is read again is an error, not "no request"; CR LF lines and a blank
    /// CR LF line are read.
    @Test func aSkippedRecordedRequestDoesNotStopTheWindow() throws {
        let path = NSTemporaryDirectory() + "ringside-skip-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        func line(token: String) throws -> String {
            let object: [String: Any] = [
                "event": "push", "status": 200,
                "request": [
                    ":method": "POST", ":path": "/3/device/\(token)", "apns-topic": Paths.topic,
                    "apns-push-type": "voip", "authorization": "bearer x", "body": Machine.body,
                ],
            ]
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) + "\r\n"
        }
        let recorded = ReplayPlan.lookahead + 1
        let text =
            try line(token: String(repeating: "cd", count: 32))
            + String(repeating: try line(token: Paths.voipToken), count: recorded) + "\r\n"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let plan = try ReplayPlan.load(transcript: path)
        #expect(plan.missing == recorded + 1)
        var machine = Machine.machine(replay: plan)
        for number in 0..<recorded {
            let actions = Machine.decide(&machine, Machine.push(stream: Int32(2 * number + 1)))
            guard actions.contains(where: { $0.hasPrefix("respond \(2 * number + 1) 200") }), plan.difference == nil
            else {
                Issue.record("request \(number + 1): \(actions), \(String(describing: plan.difference))")
                return
            }
        }
        #expect(plan.missing == 1 && plan.readError == nil)

        // Loaded whole, then cut short while the run reads it again (twice the window: the part
        // cut off has not been read yet).
        let long = String(repeating: try line(token: Paths.voipToken), count: 2 * ReplayPlan.lookahead)
        try long.write(toFile: path, atomically: false, encoding: .utf8)
        let cut = try ReplayPlan.load(transcript: path)
        try String(long.prefix(long.utf8.count * 3 / 5)).write(toFile: path, atomically: false, encoding: .utf8)
        var again = Machine.machine(replay: cut)
        for number in 0..<ReplayPlan.lookahead where cut.readError == nil {
            _ = Machine.decide(&again, Machine.push(stream: Int32(2 * number + 1)))
        }
        #expect(cut.readError?.contains("ended after") == true, "\(String(describing: cut.readError))")
    }

    /// A voip-lint refusal goes through the transcript and back: the line's `lint` names the rule
    /// (`voip-lint/expiration-not-zero`) and a replay of it refuses with the same rule, so that its log
    /// and report explain the rule, not the reason. A line without `lint`, or with the short name
    /// transcripts wrote before (`non-zero-expiration`), still replays.
    @Test func aLintRefusalKeepsItsRuleThroughTheTranscript() throws {
        func rejection(_ actions: [ConnectionAction]) -> Rejection? {
            actions.lazy.compactMap { action -> Rejection? in
                if case .record(_, _, let rejection, _, _) = action { return rejection } else { return nil }
            }.first
        }
        // No apns-expiration: stored up to 30 days, which voip-lint refuses.
        var linted = Machine.machine(validation: ValidationSettings(profile: .voipLint))
        let now = SystemClock().now()
        let actions = Machine.act(&linted, Machine.push(stream: 1), at: now)
        let refused = try #require(rejection(actions))
        #expect(refused.lint == .nonZeroExpiration)
        let record = PushRecord(
            connection: 1, streamId: 1, at: now, request: linted.machine.request,
            messageId: MessageId(sent: "123e4567-e89b-12d3-a456-4266554400a0")!,
            status: refused.reason.status, rejection: refused, accepted: nil, fault: nil)
        let line = TranscriptWriter.render(.push(record))
        #expect(line.contains(#""lint":"voip-lint/expiration-not-zero""#), "\(line)")

        func replayed(_ text: String) throws -> Rejection {
            var machine = Machine.machine(replay: ReplayPlan.parse(transcript: text))
            return try #require(rejection(Machine.act(&machine, Machine.push(stream: 1))))
        }
        let again = try replayed(line)
        #expect(again.reason == .badExpirationDate)
        #expect(again.lint == .nonZeroExpiration)
        #expect(again.explanation.hasPrefix("voip-lint/expiration-not-zero: "), "\(again.explanation)")
        let older = line.replacingOccurrences(of: "voip-lint/expiration-not-zero", with: "non-zero-expiration")
        #expect(try replayed(older).lint == .nonZeroExpiration)
        let oldest = line.replacingOccurrences(of: #","lint":"voip-lint/expiration-not-zero""#, with: "")
        #expect(oldest != line)
        let plain = try replayed(oldest)
        #expect(plain.reason == .badExpirationDate && plain.lint == nil)
    }
}
