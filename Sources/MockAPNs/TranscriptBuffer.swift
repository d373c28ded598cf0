import Foundation

/// Keeps the transcript's lines in memory for the control API (`GET /transcript`), newest last.
public final class TranscriptBuffer: MockObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private let capacity: Int

    public init(capacity: Int = 100_000) { self.capacity = capacity }

    public func observe(_ event: MockEvent) {
        let line = TranscriptWriter.render(event)
        lock.lock()
        lines.append(line)
        if lines.count > capacity { lines.removeFirst(lines.count - capacity) }
        lock.unlock()
    }

    public var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    public func clear() {
        lock.lock()
        lines.removeAll()
        lock.unlock()
    }
}
