import Foundation
import Synchronization

/// Where the rules get the time from: the wall clock, or a clock a test or a scenario moves by hand.
public protocol WorldClock: Sendable {
    func now() -> Moment
}

/// A world clock the control API can move forward (`POST /clock/advance`): the world runs ahead,
/// the wall clock does not.
public protocol AdvanceableClock: WorldClock {
    /// Moves the world clock forward; false (nothing moved) for a step that is not finite, is
    /// negative, or would take the world more than `SystemClock.maximumOffset` ahead.
    func advance(by seconds: Double) -> Bool
}

/// The wall clock plus an offset that can be advanced (docs/architecture.md, "Time").
public final class SystemClock: AdvanceableClock {
    private let offset = Mutex<Double>(0)

    public init() {}

    public func now() -> Moment {
        let wall = Date().timeIntervalSince1970
        return Moment(world: wall + offset.withLock { $0 }, wall: wall)
    }

    /// The furthest the world clock may run ahead of the wall clock: a century, far beyond every rule
    /// of APNs or the phone, near enough that times stay exact and fit every integer they become.
    public static let maximumOffset = 100 * 365 * 86_400.0

    /// Whether the world, `offset` seconds ahead of the wall clock, may move `seconds` further: a
    /// step that is finite, not negative, and keeps it within `maximumOffset`.
    static func allows(_ seconds: Double, from offset: Double) -> Bool {
        seconds.isFinite && seconds >= 0 && offset + seconds <= maximumOffset
    }

    /// Moves the world clock forward; the wall clock is untouched. Returns false (and moves nothing)
    /// for a step `allows` refuses.
    @discardableResult
    public func advance(by seconds: Double) -> Bool {
        offset.withLock { offset in
            guard Self.allows(seconds, from: offset) else { return false }
            offset += seconds
            return true
        }
    }
}

/// A clock that only moves when told to: for tests without sleeps. `passes(_:)` is time going by
/// (world and wall); `advance(by:)` is the control API's jump of the world alone.
public final class ManualClock: AdvanceableClock {
    private let moment: Mutex<Moment>

    public init(_ start: Moment = Moment(1_800_000_000)) { moment = Mutex(start) }

    public func now() -> Moment { moment.withLock { $0 } }

    /// Time goes by: the world and the wall clock move together.
    public func passes(_ seconds: Double) {
        moment.withLock {
            $0.world += seconds
            $0.wall += seconds
        }
    }

    @discardableResult
    public func advance(by seconds: Double) -> Bool {
        moment.withLock {
            guard SystemClock.allows(seconds, from: $0.world - $0.wall) else { return false }
            $0.world += seconds
            return true
        }
    }
}
