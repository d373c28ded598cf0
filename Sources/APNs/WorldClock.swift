import Foundation

/// Where the rules get the time from: the wall clock, or a clock a test or a scenario moves by hand.
public protocol WorldClock: Sendable {
    func now() -> Moment
}

/// The wall clock plus an offset that can be advanced (DESIGN.md, "Time").
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

    /// Moves the world clock forward; the wall clock is untouched.
    public func advance(by seconds: Double) {
        lock.lock()
        offset += seconds
        lock.unlock()
    }
}

/// A clock that only moves when told to: for unit tests.
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
