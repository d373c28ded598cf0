/// The world's scheduled events, earliest first (ties in the order they were scheduled).
///
/// Most events come in time order (an arrival at a fixed latency after its push): those wait in a
/// queue, appended and taken from its head in constant time and in memory order. The others (a
/// report after a round trip, an expiry) go to a binary heap. The earliest event is at the head of
/// one of the two. A heap alone sifted every pop through its depth, a cache miss a level with
/// 200,000 pushes in flight (perf: a fifth of the ticker's time under the lock).
struct EventQueue {
    private var inOrder: [ScheduledEvent] = []
    /// Where `inOrder`'s live part starts: taken events stay until half the array is taken.
    private var inOrderHead = 0
    private var heap: [ScheduledEvent] = []
    private var sequence = 0
    /// How far back from the queue's end an event a little out of order is slotted in.
    private static let slotsSearched = 64

    var peek: ScheduledEvent? { nextIsQueued ? inOrder[inOrderHead] : heap.first }

    /// Whether the earliest event is the queue's head (else the heap's top, if any).
    private var nextIsQueued: Bool {
        inOrderHead < inOrder.count && (heap.first.map { inOrder[inOrderHead] < $0 } ?? true)
    }

    var count: Int { inOrder.count - inOrderHead + heap.count }

    /// Asks to write the queue's next slot (`World.prepareForPush`).
    mutating func prepareForPush() {
        World.prefetchForWrite(after: &inOrder)
    }

    mutating func push(_ event: ScheduledEvent) {
        var event = event
        event.sequence = sequence
        sequence += 1
        // Later than every queued event (the sequence breaks a tie in its favour): it keeps the
        // queue in order.
        if inOrderHead == inOrder.count || inOrder[inOrder.count - 1].at <= event.at {
            inOrder.append(event)
            return
        }
        // A little earlier than the last queued events: two event loops read the clock, then lock
        // the world in the other order. Slotted in among them, it keeps the queue in order, and the
        // heap (a cache miss a level at every pop) stays for events far out of order.
        let floor = max(inOrderHead, inOrder.count - Self.slotsSearched)
        var slot = inOrder.count - 1
        while slot > floor, inOrder[slot - 1].at > event.at { slot -= 1 }
        if slot == inOrderHead || inOrder[slot - 1].at <= event.at {
            inOrder.insert(event, at: slot)
            return
        }
        heap.append(event)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if heap[parent] <= heap[child] { break }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    @discardableResult
    mutating func pop() -> ScheduledEvent? {
        if nextIsQueued {
            let next = inOrder[inOrderHead]
            inOrderHead += 1
            if inOrderHead == inOrder.count {
                inOrder.removeAll(keepingCapacity: true)
                inOrderHead = 0
            } else if inOrderHead >= 4096, inOrderHead * 2 >= inOrder.count {
                inOrder.removeFirst(inOrderHead)
                inOrderHead = 0
            }
            return next
        }
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}

struct ScheduledEvent: Comparable {
    var at: Double
    var kind: Kind
    var sequence = 0

    enum Kind {
        case arrive(Int)
        case report(Int)
        case systemCheck(Int)
        case expire(Int)

        /// The push the event is about.
        var number: Int {
            switch self {
            case .arrive(let number), .report(let number), .systemCheck(let number), .expire(let number): number
            }
        }
    }

    static func < (a: ScheduledEvent, b: ScheduledEvent) -> Bool { (a.at, a.sequence) < (b.at, b.sequence) }
    static func == (a: ScheduledEvent, b: ScheduledEvent) -> Bool { a.at == b.at && a.sequence == b.sequence }
}

/// When the latest calls were placed, by call id (any case): at least the latest `capacity`, at
/// most twice as many. Two generations, the older dropped whole when the newer is full: forgetting
/// the oldest call one by one cost a table removal a call, a sixth of a load's runner (perf).
struct PlacedCalls {
    static let capacity = 10_000
    private var newer: [CallKey: Double] = [:]
    private var older: [CallKey: Double] = [:]

    var isEmpty: Bool { newer.isEmpty && older.isEmpty }

    /// A call placed again (its id reused) counts from its latest placing.
    mutating func record(_ key: CallKey, at time: Double) {
        if !older.isEmpty, older[key] != nil {
            older[key] = time
            return
        }
        if newer.count >= Self.capacity, newer[key] == nil {
            older = newer
            newer = Dictionary(minimumCapacity: Self.capacity)
        }
        newer[key] = time
    }

    func time(of uuid: String) -> Double? {
        let key = CallKey(uuid)
        return newer[key] ?? older[key]
    }
}
