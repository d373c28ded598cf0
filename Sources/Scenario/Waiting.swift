import Foundation

/// The time the runner's waits read and pass: slept on loopback, passed by hand in memory and in
/// tests (`ScenarioMock`, or a test's own clock).
protocol WaitingClock: AnyObject {
    /// Wall time, in the clock the mock stamps its events with.
    var wall: Double { get }
    /// Time goes by.
    func pause(_ seconds: Double)
}

/// What a provider the runner does not control is doing, as far as it can be seen from outside.
protocol ProviderActivity: AnyObject {
    /// Wall time of the latest thing the mock saw of it (a request, a connection, a refusal).
    var lastEventAt: Double { get }
    /// Whether a process one of its commands started still runs.
    var commandsRunning: Bool { get }
}

/// How long the runner waits, and for what, before it judges a provider: the one place that knows
/// when a provider may still push (issue 45). A service that pushes from a job queue pushes on
/// its own clock, a second or five after the step that asked; its pushes are judged all the same.
///
/// - A step that drives the provider (register, unregister, call, exec) marks `providerDriven()`:
///   the provider may push until `settledAt`, `settles-within` later.
/// - A check that waits for something to happen waits up to `settledAt` (`untilHolds`).
/// - A count, or a check that something did not happen, is judged once the provider is settled:
///   quiet, and past `settledAt` (`untilSettled`).
/// - The scenario's end waits until it is settled too, and every verdict is judged again then
///   (`ScenarioRunner.judgeAgainAtEnd`): no window a provider's design can fall between.
///
/// `start` makes one per scenario; tests drive it in memory on a clock of their own.
final class Waiting {
    let clock: any WaitingClock
    let activity: any ProviderActivity
    /// How late the provider may push after a step that drives it (`ScenarioPlan.settlesWithin`).
    let settlesWithin: Double
    /// The built-in provider has sent, and been answered, when its step returns: nothing to wait for.
    let inProcess: Bool
    /// Whether the provider is a service: quiet only once the mock has seen nothing of it for
    /// `quietPeriod` (a command is quiet when its processes have ended).
    let isService: Bool
    /// When the last step that drove the provider ended.
    private(set) var drivenAt: Double?

    /// An http service is quiet when the mock has seen nothing of it for this long.
    static let quietPeriod = 0.75
    /// The longest a provider may stay busy beyond what the check and `settles-within` allow.
    static let longestQuietWait = 5.0
    /// How often a wait looks again.
    static let tick = 0.01

    init(
        clock: any WaitingClock, activity: any ProviderActivity, settlesWithin: Double, inProcess: Bool,
        isService: Bool
    ) {
        self.clock = clock
        self.activity = activity
        self.settlesWithin = inProcess ? 0 : settlesWithin
        self.inProcess = inProcess
        self.isService = isService
    }

    /// A step that drives the provider has ended: it may push until `settledAt`.
    func providerDriven() { drivenAt = clock.wall }

    /// Until when the provider may still push for the steps that drove it so far.
    var settledAt: Double { drivenAt.map { $0 + settlesWithin } ?? -.infinity }

    /// Whether the provider is quiet now: no command of its still runs, and a service has been
    /// silent for `quietPeriod` since `since`.
    func isQuiet(since: Double) -> Bool {
        if inProcess { return true }
        if activity.commandsRunning { return false }
        // A service that pushes at most `settlesWithin` after a step is done once it has been
        // silent that long: a shorter silence than `quietPeriod` then says as much.
        return !isService || clock.wall - max(since, activity.lastEventAt) >= min(Self.quietPeriod, settlesWithin)
    }

    /// Waits until the provider is settled — quiet, past `settledAt`, and past `notBefore` — for at
    /// most `longestQuietWait` beyond the later of those. False when it was still busy then: what it
    /// still does is unseen, and the check that asked is not judged as if it had finished.
    func untilSettled(notBefore: Double? = nil) -> Bool {
        let started = clock.wall
        let due = max(settledAt, notBefore ?? -.infinity, started)
        let giveUp = due + Self.longestQuietWait
        while true {
            let now = clock.wall
            if now >= due, isQuiet(since: started) { return true }
            if now >= giveUp { return false }
            clock.pause(min(Self.tick, max(due - now, Self.tick)))
        }
    }

    /// How long a check that waits for something to happen may wait from now: its own `within`, or
    /// until the provider has settled, whichever is later.
    func deadline(within: Double?) -> Double {
        max(clock.wall + (within ?? 0), settledAt)
    }

    /// How long a failed check waited, for its failure: a queue's push may have come later.
    func howLong(_ waited: Double) -> String {
        let settles = settlesWithin == 0 ? "0 s" : Self.seconds(settlesWithin)
        return " (judged after waiting \(Self.seconds(waited)); the provider settles within \(settles) of a step: "
            + "a provider that pushes later declares `settles-within:`)"
    }

    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.1f s", value) : "\(Int(value.rounded())) s"
    }

    /// Judges `check` until it holds or `deadline` passes; `next` lets time go by one step and says
    /// whether anything more can happen before the deadline (the runner's world may skip ahead).
    func untilHolds<Found>(
        before deadline: Double, _ check: () -> Found, holds: (Found) -> Bool, next: (Double) -> Bool
    ) -> Found {
        var found = check()
        while !holds(found), clock.wall < deadline {
            let more = next(deadline)
            found = check()
            if !more { break }
        }
        return found
    }
}
