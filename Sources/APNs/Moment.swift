/// A point in time as the rules need it: the world's time and the wall clock's, in seconds since 1970.
///
/// They differ once a scenario advances the world clock (docs/architecture.md, "Time"); rules that judge an age
/// use the world's time, and a JWT's `iat` (set by the provider's wall clock) is first compared with
/// the wall clock.
public struct Moment: Sendable, Equatable {
    public var world: Double
    public var wall: Double

    public init(world: Double, wall: Double) {
        self.world = world
        self.wall = wall
    }

    /// A moment when the world clock is the wall clock.
    public init(_ seconds: Double) { self.init(world: seconds, wall: seconds) }

    public var milliseconds: Int64 { Int64((world * 1000).rounded(.down)) }
}
