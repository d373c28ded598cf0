import Foundation

/// Where the rules get the time from: the wall clock, or a clock a test or a scenario moves by hand.
public protocol WorldClock: Sendable {
    func now() -> Moment
}

/// The wall clock plus an offset that can be advanced (docs/architecture.md, "Time").
/// Unchecked Sendable: `offset` is behind `lock`.
public final class SystemClock: WorldClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: Double = 0

    public init() {}

    public func now() -> Moment {
        let wall = Date().timeIntervalSince1970
        lock.lock()
        defer { lock.unlock() }
        return Moment(world: wall + offset, wall: wall)
    }

    /// The furthest the world clock may run ahead of the wall clock: a century, far beyond every rule
    /// of APNs or the phone, near enough that times stay exact and fit every integer they become.
    public static let maximumOffset = 100 * 365 * 86_400.0

    /// Moves the world clock forward; the wall clock is untouched. Returns false (and moves nothing)
    /// for a step that is not finite, is negative, or would take the world past `maximumOffset`.
    @discardableResult
    public func advance(by seconds: Double) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard seconds.isFinite, seconds >= 0, offset + seconds <= Self.maximumOffset else { return false }
        offset += seconds
        return true
    }
}

/// A clock that only moves when told to: for unit tests.
/// Unchecked Sendable: `moment` is behind `lock`.
public final class ManualClock: WorldClock, @unchecked Sendable {
    private let lock = NSLock()
    private var moment: Moment

    public init(_ start: Moment = Moment(1_800_000_000)) { moment = start }

    public func now() -> Moment {
        lock.lock()
        defer { lock.unlock() }
        return moment
    }

    /// Moves both the world and the wall clock.
    public func advance(by seconds: Double) {
        lock.lock()
        moment.world += seconds
        moment.wall += seconds
        lock.unlock()
    }
}
