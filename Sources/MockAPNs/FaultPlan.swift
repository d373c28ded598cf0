import APNs
import Foundation
import Synchronization

/// Scripted answers armed by a test or a scenario (WireMock-style), consulted before the rules.
///
/// A plan is explicit: nothing in the rules knows about it (STYLE.md, "observers watch, they never decide").
public final class FaultPlan: @unchecked Sendable {
    /// One armed fault: answer the next `count` matching requests with `reason`.
    public struct Fault: Sendable {
        public var reason: Reason
        public var remaining: Int
        /// Only requests to this device token; nil for any.
        public var deviceToken: String?

        public init(reason: Reason, count: Int, deviceToken: String? = nil) {
            self.reason = reason
            remaining = count
            self.deviceToken = deviceToken
        }
    }

    private let lock = NSLock()
    private var faults: [Fault] = []
    /// How many faults are armed, readable without the lock: most requests meet an empty plan.
    private let armed = Atomic<Int>(0)

    public init() {}

    public func arm(_ fault: Fault) {
        lock.lock()
        faults.append(fault)
        armed.store(faults.count, ordering: .releasing)
        lock.unlock()
    }

    /// The fault that answers this request, if any; uses up one of its count.
    func take(deviceToken: String?) -> Reason? {
        if armed.load(ordering: .acquiring) == 0 { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let index = faults.firstIndex(where: { $0.deviceToken == nil || $0.deviceToken == deviceToken }) else {
            return nil
        }
        faults[index].remaining -= 1
        let reason = faults[index].reason
        if faults[index].remaining <= 0 {
            faults.remove(at: index)
            armed.store(faults.count, ordering: .releasing)
        }
        return reason
    }

    public var isEmpty: Bool {
        lock.lock()
        defer { lock.unlock() }
        return faults.isEmpty
    }
}
