import APNs
import Foundation
import Synchronization

/// A device directory from a fixed table: device tokens that are dead, expired or for another topic.
/// Every token not in the table is registered. The world model replaces it.
public final class StaticDeviceDirectory: DeviceDirectory {
    private let entries: Mutex<[String: DeviceLookup]>

    public init(_ entries: [String: DeviceLookup] = [:]) {
        self.entries = Mutex(entries.reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value })
    }

    public func set(_ token: String, _ lookup: DeviceLookup) {
        entries.withLock { $0[token.lowercased()] = lookup }
    }

    public func lookup(token: String, topic: String, environment: APNsEnvironment, now: Double) -> DeviceLookup {
        entries.withLock { $0[token.lowercased()] ?? .active }
    }
}
