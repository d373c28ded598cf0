import Foundation

/// Keeps the latest events in memory for the control API (`GET /transcript`), newest last. Events
/// are kept as values and rendered as JSON only when asked: rendering every request as it happens
/// would cost more than serving it.
/// Unchecked Sendable: `events` is behind `lock`; `capacity` is a `let`.
public final class TranscriptBuffer: MockObserver, @unchecked Sendable {
    private let lock = NSLock()
    /// A ring: once full, the oldest event is overwritten (memory flat, not a sawtooth).
    /// Unchecked exclusivity: only touched with `lock` held, so accesses cannot overlap.
    @exclusivity(unchecked) private var events: [MockEvent] = []
    @exclusivity(unchecked) private var oldest = 0
    private let capacity: Int

    public init(capacity: Int = 100_000) { self.capacity = max(1, capacity) }

    /// What a kept request may hold: its body's first kilobyte (and its length), and a kilobyte of
    /// each text field, so that memory is bounded by the event cap (issue 11: 8 KB bodies made the
    /// full buffer about 0.9 GB).
    public static let keptBytes = 1024

    public func observe(_ event: consuming MockEvent) {
        if case .push(var record) = event, record.request.compact(keeping: Self.keptBytes) {
            keep(.push(record))
        } else {
            keep(event)  // taken as it is: most events are kept as they came
        }
    }

    private func keep(_ event: consuming MockEvent) {
        // The event it replaces is freed after the lock: the other workers need not wait for that.
        var replaced: MockEvent?
        lock.lock()
        if events.count < capacity {
            events.append(event)
        } else {
            replaced = consume event
            swap(&events[oldest], &replaced!)
            oldest = (oldest + 1) % capacity
        }
        lock.unlock()
        _ = replaced
    }

    /// The kept events, oldest first.
    public var kept: [MockEvent] {
        lock.lock()
        defer { lock.unlock() }
        return Array(events[oldest...] + events[..<oldest])
    }

    /// The kept events as JSONL lines.
    public var all: [String] { kept.map(TranscriptWriter.render) }

    /// How many events are kept.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return events.count
    }

    /// A slice of the kept events, oldest first (a page of `GET /transcript`).
    public func kept(_ range: Range<Int>) -> [MockEvent] {
        lock.lock()
        defer { lock.unlock() }
        return range.clamped(to: 0..<events.count).map { events[(oldest + $0) % events.count] }
    }

    public func clear() {
        lock.lock()
        events.removeAll()
        oldest = 0
        lock.unlock()
    }
}
