import Foundation

/// Keeps the latest events in memory for the control API (`GET /transcript`), newest last. Events
/// are kept as values and rendered as JSON only when asked: rendering every request as it happens
/// would cost more than serving it.
/// Unchecked Sendable: `events` is behind `lock`; `capacity` is a `let`.
public final class TranscriptBuffer: MockObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [MockEvent] = []
    private let capacity: Int

    public init(capacity: Int = 100_000) { self.capacity = capacity }

    /// What a kept request may hold: its body's first kilobyte (and its length), and a kilobyte of
    /// each text field, so that memory is bounded by the event cap (issue 11: 8 KB bodies made the
    /// full buffer about 0.9 GB).
    public static let keptBytes = 1024

    public func observe(_ event: MockEvent) {
        var event = event
        if case .push(var record) = event {
            record.request.compact(keeping: Self.keptBytes)
            event = .push(record)
        }
        lock.lock()
        events.append(event)
        if events.count > capacity { events.removeFirst(events.count / 2) }
        lock.unlock()
    }

    /// The kept events, oldest first.
    public var kept: [MockEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    /// The kept events as JSONL lines.
    public var all: [String] { kept.map(TranscriptWriter.render) }

    public func clear() {
        lock.lock()
        events.removeAll()
        lock.unlock()
    }
}
