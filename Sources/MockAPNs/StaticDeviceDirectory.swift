import APNs
import Foundation

/// A device directory from a fixed table: device tokens that are dead, expired or for another topic.
/// Every token not in the table is registered. The world model replaces it.
/// Unchecked Sendable: `entries` is behind `lock` after init.
public final class StaticDeviceDirectory: DeviceDirectory, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: DeviceLookup] = [:]

    public init(_ entries: [String: DeviceLookup] = [:]) {
        self.entries = entries.reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value }
    }

    public func set(_ token: String, _ lookup: DeviceLookup) {
        lock.lock()
        entries[token.lowercased()] = lookup
        lock.unlock()
    }

    public func lookup(token: String, topic: String, environment: APNsEnvironment, now: Double) -> DeviceLookup {
        lock.lock()
        defer { lock.unlock() }
        return entries[token.lowercased()] ?? .active
    }
}
