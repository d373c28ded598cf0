import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing

/// A provider numbers its pushes (a new `apns-id` each) or fans out (a new `:path` each): the
/// connection reads only the fields that changed from the block before
/// (`ConnectionStateMachine.revisedRequest`), and the checks that read them run again.
@Suite struct RevisedBlockTests {
    @Test("A block that differs from the one before in its apns-id or path is judged on the new values")
    func revisedFieldsAreJudgedAgain() throws {
        let world = try MemoryMock()
        let alice = try world.phone()
        let bob = try world.phone()
        let connection = world.connect()
        let jwt = world.jwt()
        func send(_ token: String, id: String, path: String? = nil) -> MemoryClient.Answer {
            let stream = connection.push(token: token, jwt: jwt, ["apns-id": id], path: path)
            world.pump()
            return connection.answer(stream)
        }
        func id(_ n: Int) -> String { "00000000-0000-4000-8000-\(String(format: "%012d", n))" }
        /// The device tokens of the pushes the world took with this apns-id, in order.
        func tokens(_ id: String) throws -> [String] {
            let all = try world.control("GET", "/outcomes") as! [[String: Any]]
            return all.filter { $0["apnsId"] as? String == id }.compactMap { $0["token"] as? String }
        }

        let first = send(alice.voip, id: id(1))
        #expect(first.status == 200 && first.headers["apns-id"] == id(1), "\(first)")
        // The apns-id alone changes: a bad one is refused, twice (the same block again), then a good one passes.
        for _ in 0..<2 {
            let bad = send(alice.voip, id: "not-a-uuid-but-thirty-six-bytes-long")
            #expect(bad.status == 400 && bad.reason == "BadMessageId", "\(bad)")
        }
        let second = send(alice.voip, id: id(2))
        #expect(second.status == 200 && second.headers["apns-id"] == id(2), "\(second)")
        // The path alone changes (the same apns-id): the push goes to the new device token.
        // Then the same block again: it is the revised block that is remembered, not the one before.
        for _ in 0..<2 {
            let toBob = send(bob.voip, id: id(2))
            #expect(toBob.status == 200, "\(toBob)")
        }
        #expect(try tokens(id(2)) == [alice.voip, bob.voip, bob.voip])
        // A bad device token, twice, then a missing one, then not a device path.
        for _ in 0..<2 {
            let bad = send("zz", id: id(2))
            #expect(bad.status == 400 && bad.reason == "BadDeviceToken", "\(bad)")
        }
        let missing = send("", id: id(2))
        #expect(missing.status == 400 && missing.reason == "MissingDeviceToken", "\(missing)")
        let notADevice = send("", id: id(2), path: "/3/devices/\(alice.voip)")
        #expect(notADevice.status == 404 && notADevice.reason == "BadPath", "\(notADevice)")
        // Both at once, back to alice.
        let back = send(alice.voip, id: id(3))
        #expect(back.status == 200 && back.headers["apns-id"] == id(3), "\(back)")
        #expect(try tokens(id(3)) == [alice.voip])
        #expect(try tokens(id(1)) == [alice.voip])
    }
}
