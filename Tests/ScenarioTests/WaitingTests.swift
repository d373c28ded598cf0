import Testing

@testable import Scenario

/// The runner's waiting (Waiting.swift), in memory on a clock of the test's own: a provider that
/// pushes from a job queue is a list of times at which "the mock sees something".
@Suite struct WaitingTests {
    /// A clock that moves only when a wait passes time, and a provider seen from outside whose
    /// requests come at the times given.
    final class Script: WaitingClock, ProviderActivity {
        var wall = 1_000.0
        /// When the provider's requests reach the mock.
        var pushes: [Double] = []
        /// Until when one of its commands still runs.
        var commandUntil = -Double.infinity

        func pause(_ seconds: Double) { wall += max(seconds, 0) }
        var lastEventAt: Double { pushes.filter { $0 <= wall }.max() ?? 0 }
        var commandsRunning: Bool { wall < commandUntil }
        func seen() -> Int { pushes.filter { $0 <= wall }.count }
    }

    func waiting(_ script: Script, settlesWithin: Double, service: Bool = true) -> Waiting {
        Waiting(clock: script, activity: script, settlesWithin: settlesWithin, inProcess: false, isService: service)
    }

    @Test("A count is judged once the provider has settled: a queue's push 1 s after the call is counted")
    func countWaitsForTheQueue() {
        let script = Script()
        let waiting = waiting(script, settlesWithin: 2)
        waiting.providerDriven()
        script.pushes = [script.wall + 1]
        #expect(waiting.untilSettled())
        #expect(script.seen() == 1)
        #expect(script.wall >= waiting.settledAt)
    }

    @Test("Negative control: with no time to settle, the same count is judged before the queue's push")
    func noSettlingJudgesTooEarly() {
        let script = Script()
        let waiting = waiting(script, settlesWithin: 0)
        waiting.providerDriven()
        script.pushes = [script.wall + 1]
        #expect(waiting.untilSettled())
        #expect(script.seen() == 0)
    }

    @Test("A check that waits for something waits up to the settling time, and no longer once it holds")
    func positiveWaitsUpToSettling() {
        let script = Script()
        let waiting = waiting(script, settlesWithin: 5)
        waiting.providerDriven()
        let start = script.wall
        script.pushes = [start + 3]
        let deadline = waiting.deadline(within: 1)
        #expect(deadline == start + 5)
        let found = waiting.untilHolds(
            before: deadline, { script.seen() }, holds: { $0 == 1 },
            next: { _ in
                script.pause(0.01)
                return true
            })
        #expect(found == 1)
        #expect(script.wall < start + 3.1, "it stopped waiting once it held")
    }

    @Test("A service that keeps sending is not settled: the wait gives up and says so")
    func busyServiceIsNotSettled() {
        let script = Script()
        let waiting = waiting(script, settlesWithin: 1)
        waiting.providerDriven()
        script.pushes = stride(from: script.wall, to: script.wall + 60, by: 0.5).map { $0 }
        #expect(!waiting.untilSettled())
        #expect(script.wall <= waiting.settledAt + Waiting.longestQuietWait + Waiting.tick)
    }

    @Test("A command still running keeps the provider busy; once it ends, the wait is over")
    func commandsAreAwaited() {
        let script = Script()
        let waiting = waiting(script, settlesWithin: 0, service: false)
        waiting.providerDriven()
        script.commandUntil = script.wall + 2
        #expect(waiting.untilSettled())
        #expect(script.wall >= script.commandUntil)
    }

    @Test("The built-in provider is settled when its step returns: nothing is waited for")
    func inProcessWaitsForNothing() {
        let script = Script()
        let waiting = Waiting(clock: script, activity: script, settlesWithin: 5, inProcess: true, isService: false)
        waiting.providerDriven()
        let start = script.wall
        #expect(waiting.untilSettled())
        #expect(script.wall == start)
        #expect(waiting.settlesWithin == 0)
    }

    @Test("A failure says how long it waited and how late the provider may push")
    func failureSaysHowLong() {
        let waiting = waiting(Script(), settlesWithin: 2)
        #expect(waiting.howLong(0.8).contains("judged after waiting 0.8 s"))
        #expect(waiting.howLong(0.8).contains("settles within 2.0 s"))
    }
}
