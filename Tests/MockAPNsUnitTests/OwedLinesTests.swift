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

    /// A later push taking the slot (its event loop preempted meanwhile) leaves the debt owed: the
    /// outcome kept back before or after is handed back when the line is paid (the slot overwritten
    /// lost it, or told it early, in an adversary's stress run).
    @Test func aSlotTakenByALaterPushKeepsTheDebt() {
        let pushes = finished(3)
        let lines = OwedLines()
        lines.owe(1)
        #expect(lines.ready([pushes[1]]).isEmpty)  // kept back
        lines.owe(1 + 1024)  // another event loop admits push 1025
        #expect(lines.paid(1).map(\.number) == [1])
        #expect(lines.paid(1).isEmpty)
        // Moved out before its outcome came: still kept back until paid.
        lines.owe(2)
        lines.owe(2 + 1024)
        #expect(lines.ready(pushes).map(\.number) == [0, 1])
        #expect(lines.paid(2).map(\.number) == [2])
        #expect(lines.paid(2 + 1024).isEmpty)
        #expect(lines.ready(pushes).map(\.number) == [0, 1, 2])
    }

    @Test func clearingForgetsEveryDebt() {
        let pushes = finished(2)
        let lines = OwedLines()
        lines.owe(0)
        lines.owe(1)
        lines.owe(1 + 1024)
        #expect(lines.ready(pushes).isEmpty)
        lines.clear()
        #expect(lines.paid(0).isEmpty)
        #expect(lines.ready(pushes).map(\.number) == [0, 1])
    }
}
