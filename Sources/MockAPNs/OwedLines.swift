import Synchronization
import World

/// Pushes whose request line is not written yet, and the outcomes held back until it is: an outcome
/// is told after its request (`SharedWorld.admit`, then `told`), as it was when the world learned of
/// a push only after its line.
///
/// A line is owed for a moment only (from the world's admission to the line, within one event-loop
/// call), so a few slots by push number suffice, each `number << 2 | state`, changed without a lock
/// on a push's way. The `Mutex<Set<Int>>` this replaces was taken inside the world's lock on every
/// push, and spun there (a PI futex) while another event loop held it in `told`
/// (`bash bench/world-profile.sh`). Outcomes are held under a lock, which the common path never takes.
final class OwedLines: Sendable {
    private static let slotCount = 1024
    private static let owed = 1
    private static let heldBack = 2
    /// Unchecked Sendable in effect: the pointer is set once, and every slot is an atomic.
    private nonisolated(unsafe) let slots: UnsafeMutablePointer<Atomic<Int>>
    private let held = Mutex<[FinishedPush]>([])

    init() {
        slots = .allocate(capacity: Self.slotCount)
        for index in 0..<Self.slotCount { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: Self.slotCount)
        slots.deallocate()
    }

    private func slot(_ number: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        slots + (number & (Self.slotCount - 1))
    }

    /// Push `number` owes its line. Called with the world locked, before the push can finish: the
    /// ticker, which finishes pushes under the same lock, then sees the debt.
    func owe(_ number: Int) {
        slot(number).pointee.store(number << 2 | Self.owed, ordering: .releasing)
    }

    /// The outcomes that may be told now, in order; those whose line is owed are kept back.
    func ready(_ finished: [FinishedPush]) -> [FinishedPush] {
        guard finished.contains(where: { isOwed($0.number) }) else { return finished }
        return held.withLock { held in
            var ready: [FinishedPush] = []
            for push in finished {
                let (kept, _) = slot(push.number).pointee.compareExchange(
                    expected: push.number << 2 | Self.owed, desired: push.number << 2 | Self.heldBack,
                    ordering: .acquiringAndReleasing)
                if kept { held.append(push) } else { ready.append(push) }
            }
            return ready
        }
    }

    /// Push `number`'s line is written: its outcome, if it was kept back.
    func paid(_ number: Int) -> [FinishedPush] {
        let slot = slot(number)
        let (paidFirst, found) = slot.pointee.compareExchange(
            expected: number << 2 | Self.owed, desired: 0, ordering: .acquiringAndReleasing)
        guard !paidFirst, found == number << 2 | Self.heldBack else { return [] }
        // The outcome was kept back under `held`, with the slot changed: taking the lock waits for it.
        return held.withLock { held in
            slot.pointee.store(0, ordering: .relaxed)
            let mine = held.filter { $0.number == number }
            held.removeAll { $0.number == number }
            return mine
        }
    }

    /// Forgets every debt and kept outcome (the world starts again, and numbers with it).
    func clear() {
        held.withLock { held in
            for index in 0..<Self.slotCount { (slots + index).pointee.store(0, ordering: .relaxed) }
            held.removeAll()
        }
    }

    private func isOwed(_ number: Int) -> Bool {
        slot(number).pointee.load(ordering: .acquiring) == number << 2 | Self.owed
    }
}
