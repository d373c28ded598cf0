import APNs
import TestSupport
import Testing

@testable import HTTP2Server
@testable import MockAPNs

/// No weak reference to a connection or its handler: Swift gives an object that is weakly referenced
/// a side table for the rest of its life, and every retain and release of it then takes the
/// runtime's slow path. The stream limit raised at a connection's first valid JWT once captured
/// both weakly, which cost every later request about 500 instructions (`bash bench/callgrind.sh`).
@Suite struct SideTableTests {
    /// Whether the runtime gave `object` a side table: the top bit of the inline reference count
    /// (Swift's `UseSlowRC`), in the word after the object's type on 64-bit platforms.
    static func hasSideTable(_ object: AnyObject) -> Bool {
        withExtendedLifetime(object) {
            Unmanaged.passUnretained(object).toOpaque().load(fromByteOffset: 8, as: UInt64.self) >> 63 == 1
        }
    }

    /// A connection as a worker runs it, without a socket: actions run when the test says.
    final class Control: ConnectionControl {
        var scheduled: [() -> Void] = []
        var limits: [UInt32] = []
        var statuses: [Int] = []
        func respond(streamId: Int32, _ response: HTTP2Response) { statuses.append(response.status) }
        func reset(streamId: Int32, errorCode: UInt32) {}
        func setMaxConcurrentStreams(_ value: UInt32) { limits.append(value) }
        func goAway(lastStreamId: Int32?, errorCode: UInt32, debugData: [UInt8], close: Bool) {}
        func after(_ seconds: Double, _ action: @escaping () -> Void) { scheduled.append(action) }
        func close() {}
        func trust() {}
        func runScheduled() {
            let due = scheduled
            scheduled.removeAll()
            for action in due { action() }
        }
    }

    @Test("The detector sees a side table where a weak reference was formed, and none elsewhere")
    func detectorWorks() {
        let plain = Control()
        let watched = Control()
        weak let weakly = watched
        #expect(weakly != nil)
        #expect(!Self.hasSideTable(plain))
        #expect(Self.hasSideTable(watched))
    }

    @Test("A token connection's handler and connection stay without a side table through the raised stream limit")
    func noSideTableAfterTheFirstJWT() {
        let mock = MockAPNs(
            configuration: MockConfiguration(validation: ValidationSettings(), keys: ConnectionStateMachineTests.keys))
        let info = ConnectionInfo(id: 1, peer: "127.0.0.1:1", isTLS: true, alpn: "h2", clientCertificateDER: nil)
        let handler = mock.open(info)
        let control = Control()
        handler.handle(ConnectionStateMachineTests.push(stream: 1), connection: control)
        control.runScheduled()
        handler.handle(ConnectionStateMachineTests.push(stream: 3), connection: control)
        control.runScheduled()
        #expect(control.limits.contains { $0 > 1 }, "the first valid JWT raised the stream limit: \(control.limits)")
        #expect(control.statuses.count == 2, "both pushes answered: \(control.statuses)")
        #expect(!Self.hasSideTable(handler), "the handler was weakly referenced")
        #expect(!Self.hasSideTable(control), "the connection was weakly referenced")
    }
}
