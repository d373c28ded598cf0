import APNs
import Foundation
import Synchronization
import Testing
import World

@testable import Scenario

/// A load's lanes (`AskingPool`, `LoadRun.placeCalls`) and its call ids (`LoadRun.uuid`).
@Suite struct LoadLaneTests {
    @Test(
        "A load's call ids are version-4 UUIDs, spelled as Foundation spells them in lower case; their keys are theirs")
    func callIds() {
        var ours = MessageIdGenerator(seed: 7)
        var theirs = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let id = LoadRun.callId(&ours)
            let words = [theirs.next(), theirs.next()]
            var bytes = words.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * $0)) } }
            bytes[6] = (bytes[6] & 0x0f) | 0x40
            bytes[8] = (bytes[8] & 0x3f) | 0x80
            let expected = bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }.uuidString
            #expect(id.uuid == expected.lowercased())
            #expect(id.key == CallKey(expected), "the key of \(expected), upper case, is the call's")
            if id.uuid != expected.lowercased() || id.key != CallKey(expected) { return }
        }
    }

    @Test("A lane with a batch under way does not hold back another lane; each lane takes one batch at a time")
    func lanesDoNotWaitForEachOther() throws {
        let pool = AskingPool(concurrency: 1, threaded: true, lanes: 2)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let order = Mutex<[String]>([])
        try pool.ask(lane: 0) {
            started.signal()
            release.wait()
            order.withLock { $0.append("lane 0 first") }
        }
        started.wait()
        #expect(!pool.isIdle(lane: 0))
        #expect(pool.isIdle(lane: 1))
        let done = DispatchSemaphore(value: 0)
        try pool.ask(lane: 1) {
            order.withLock { $0.append("lane 1") }
            done.signal()
        }
        // Lane 1's batch is answered while lane 0's is still under way.
        #expect(done.wait(timeout: .now() + 10) == .success)
        // A second batch for lane 0 waits for its first: asked from another thread, it is not begun.
        let asked = DispatchSemaphore(value: 0)
        Thread {
            try? pool.ask(lane: 0) { order.withLock { $0.append("lane 0 second") } }
            asked.signal()
        }.start()
        #expect(asked.wait(timeout: .now() + 0.3) == .timedOut)
        release.signal()
        #expect(asked.wait(timeout: .now() + 10) == .success)
        pool.drain()
        #expect(order.withLock { $0 } == ["lane 1", "lane 0 first", "lane 0 second"])
        #expect(pool.isIdle(lane: 0) && pool.isIdle(lane: 1))
    }
}
