import APNs
import Testing
import World

@testable import MockAPNs

/// An outcome waits for its push's request line (`OwedLines`): kept back while the line is owed,
/// handed back once when it is paid, passed through when nothing is owed, and not kept for a push
/// whose slot a later number took. A `ready` that kept nothing back, or a `paid` that lost what was
/// kept, fails here (the socket test is `RingsideTestingTests`' line-before-outcome test).
@Suite struct OwedLinesTests {
    /// Pushes 0 ..< `count` of a world, each finished at once (no phone holds the token).
    func finished(_ count: Int) -> [FinishedPush] {
        let world = World()
        for index in 0..<count {
            let push = AcceptedPush(
                deviceToken: String(repeating: "ab", count: 32), topic: "com.example.voip", pushType: .voip,
                priority: .immediate, expiration: 0, collapseId: nil, keyId: nil, teamId: nil,
                isFirstValidToken: false)
            world.accept(push, environment: .sandbox, body: [], apnsId: "id-\(index)", at: 1_800_000_000)
        }
        return world.takeFinishedPushes()
    }

    @Test func anOutcomeWaitsForItsLine() {
        let pushes = finished(3)
        #expect(pushes.map(\.number) == [0, 1, 2])
        let lines = OwedLines()
        lines.owe(1)
        #expect(lines.ready(pushes).map(\.number) == [0, 2])
        #expect(lines.paid(1).map(\.number) == [1])
        #expect(lines.paid(1).isEmpty)
        // Paid before its outcome came: nothing kept, and the outcome passes.
        lines.owe(2)
        #expect(lines.paid(2).isEmpty)
        #expect(lines.ready(pushes).map(\.number) == [0, 1, 2])
    }

    @Test func aSlotTakenByALaterPushOrClearedKeepsNothing() {
        let pushes = finished(2)
        let lines = OwedLines()
        lines.owe(1)
        lines.owe(1 + 1024)  // the same slot: push 1's line is no longer tracked
        #expect(lines.ready(pushes).map(\.number) == [0, 1])
        lines.owe(0)
        #expect(lines.ready(pushes).map(\.number) == [1])
        lines.clear()
        #expect(lines.paid(0).isEmpty)
        #expect(lines.ready(pushes).map(\.number) == [0, 1])
    }
}
