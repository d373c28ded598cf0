import CLinux
import Synchronization
import World

/// Pushes whose request line is not written yet, and the outcomes held back until it is: an outcome
/// is told after its request (`SharedWorld.admit`, then `told`), as it was when the world learned of
/// a push only after its line.
///
/// A line is usually owed for a moment only (from the world's admission to the line, within one
/// event-loop call), so slots by push number, each `number << 2 | state`, changed without a lock,
/// serve the common path. The `Mutex<Set<Int>>` this replaces was taken inside the world's lock on
/// every push, and spun there (a PI futex) while another event loop held it in `told`
/// (`bash bench/world-profile.sh`). But an event loop can be preempted between admission and line
/// while others admit a thousand pushes: a push whose slot a later number needs is then moved, under
/// the lock, to `displaced`, and stays owed there (an adversary's stress run lost outcomes and told
/// one early when the slot was simply overwritten). Orderings are sequentially consistent: a reader
/// that sees a slot's new number also sees `displacedCount` raised before it.
final class OwedLines: Sendable {
    private static let slotCount = 1024
    /// A slot to a cache line (8 atomics of 8 bytes): consecutive numbers go to whichever event loop
    /// admits them, and slots side by side moved their line between cores on every push.
    private static let stride = 8
    private static let owed = 1
    private static let heldBack = 2
    /// Unchecked Sendable in effect: the pointer is set once, and every slot is an atomic.
    private nonisolated(unsafe) let slots: UnsafeMutablePointer<Atomic<Int>>
    /// Outcomes kept back, and the pushes moved out of their slot (true: its outcome is kept back).
    private struct Kept {
        var held: [FinishedPush] = []
        var displaced: [Int: Bool] = [:]
    }
    private let kept = Mutex(Kept())
    /// How many pushes are in `displaced`: readable without the lock, raised before a slot changes.
    private let displacedCount = Atomic<Int>(0)

    init() {
        slots = .allocate(capacity: Self.slotCount * Self.stride)
        for index in 0..<Self.slotCount * Self.stride { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: Self.slotCount * Self.stride)
        slots.deallocate()
    }

    private func slot(_ number: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        slots + (number & (Self.slotCount - 1)) * Self.stride
    }

    /// Whether a slot's value is a debt (owed, or owed with its outcome kept back) of another push.
    private static func isAnotherDebt(_ value: Int, than number: Int) -> Bool {
        value & 3 != 0 && value >> 2 != number
    }

    /// Asks for the slot of push `number` (the world's next), to be written by `owe` a moment
    /// later, with the world's lock held: the line was last written on another core, and `owe`
    /// waited for it (0.55% of the mock's CPU samples in `bash bench/world-profile.sh`, 0.16% asked
    /// for first).
    func prepare(_ number: Int) { ringside_prefetch_for_write(slot(number)) }

    /// Push `number` owes its line. Called with the world locked, before the push can finish: the
    /// ticker, which finishes pushes under the same lock, then sees the debt.
    func owe(_ number: Int) {
        let slot = slot(number)
        var current = slot.pointee.load(ordering: .sequentiallyConsistent)
        while !Self.isAnotherDebt(current, than: number) {
            let (done, found) = slot.pointee.compareExchange(
                expected: current, desired: number << 2 | Self.owed, ordering: .sequentiallyConsistent)
            if done { return }
            current = found
        }
        kept.withLock { kept in
            displacedCount.add(1, ordering: .sequentiallyConsistent)
            let old = slot.pointee.exchange(number << 2 | Self.owed, ordering: .sequentiallyConsistent)
            if Self.isAnotherDebt(old, than: number) {
                kept.displaced[old >> 2] = old & 3 == Self.heldBack
            } else {
                displacedCount.subtract(1, ordering: .sequentiallyConsistent)  // paid meanwhile
            }
        }
    }

    /// The outcomes that may be told now, in order; those whose line is owed are kept back.
    func ready(_ finished: [FinishedPush]) -> [FinishedPush] {
        guard
            displacedCount.load(ordering: .sequentiallyConsistent) > 0
                || finished.contains(where: { isOwed($0.number) })
        else { return finished }
        return kept.withLock { kept in
            var ready: [FinishedPush] = []
            for push in finished {
                let (keptBack, _) = slot(push.number).pointee.compareExchange(
                    expected: push.number << 2 | Self.owed, desired: push.number << 2 | Self.heldBack,
                    ordering: .sequentiallyConsistent)
                if keptBack {
                    kept.held.append(push)
                } else if kept.displaced[push.number] != nil {
                    kept.displaced[push.number] = true
                    kept.held.append(push)
                } else {
                    ready.append(push)
                }
            }
            return ready
        }
    }

    /// Push `number`'s line is written: its outcome, if it was kept back.
    func paid(_ number: Int) -> [FinishedPush] {
        let slot = slot(number)
        let (paidFirst, found) = slot.pointee.compareExchange(
            expected: number << 2 | Self.owed, desired: 0, ordering: .sequentiallyConsistent)
        guard !paidFirst,
            found == number << 2 | Self.heldBack || displacedCount.load(ordering: .sequentiallyConsistent) > 0
        else { return [] }
        // Kept back, or moved out of its slot: both under the lock.
        return kept.withLock { kept in
            let (wasKept, _) = slot.pointee.compareExchange(
                expected: number << 2 | Self.heldBack, desired: 0, ordering: .sequentiallyConsistent)
            if !wasKept {
                guard kept.displaced.removeValue(forKey: number) != nil else { return [] }
                displacedCount.subtract(1, ordering: .sequentiallyConsistent)
            }
            let mine = kept.held.filter { $0.number == number }
            kept.held.removeAll { $0.number == number }
            return mine
        }
    }

    /// Forgets every debt and kept outcome (the world starts again, and numbers with it).
    func clear() {
        kept.withLock { kept in
            for index in 0..<Self.slotCount {
                (slots + index * Self.stride).pointee.store(0, ordering: .sequentiallyConsistent)
            }
            kept = Kept()
            displacedCount.store(0, ordering: .sequentiallyConsistent)
        }
    }

    private func isOwed(_ number: Int) -> Bool {
        slot(number).pointee.load(ordering: .sequentiallyConsistent) == number << 2 | Self.owed
    }
}
