import APNs
import Foundation
import TestSupport
import Testing

@testable import MockAPNs

/// `serve`'s log writes an accepted push's line as bytes (issue 30): the same text as the general
/// path, for the pushes it takes, and the general path for every other.
@Suite struct RequestLogTests {
    @Test("An accepted push's line written as bytes reads exactly as the general path writes it")
    func bytesMatchTheGeneralLine() throws {
        let server = try MemoryMock.protocolOnly()
        #expect(server.applePush().status == 200)
        #expect(server.applePush(headers: ["apns-push-type": nil]).status == 200)
        #expect(server.applePush(token: String(repeating: "0f", count: 32)).status == 200)
        #expect(server.applePush(headers: ["apns-priority": "7"]).status == 400)
        // The provider's own apns-id, written as sent; the others the mock made.
        #expect(server.applePush(headers: ["apns-id": "123E4567-E89B-12D3-A456-426614174000"]).status == 200)
        let records = server.events.pushes
        #expect(records.count == 5)
        var fast = 0
        for record in records {
            var bytes: [UInt8] = []
            let general = OutsideText.visible(RequestLog.line(for: .push(record))) + "\n"
            if RequestLog.acceptedLine(record, into: &bytes) {
                fast += 1
                #expect(String(decoding: bytes, as: UTF8.self) == general)
            } else {
                #expect(record.status != 200, "\(general)")
            }
        }
        #expect(fast == 4)
    }

    @Test("A field the log must show visibly (a backslash, a control byte) takes the general path")
    func outsideTextTakesTheGeneralPath() throws {
        let server = try MemoryMock.protocolOnly(ValidationSettings(profile: .apple))
        _ = server.applePush(headers: ["apns-topic": #"com.ringside.testapp.voip\x"#])
        #expect(!server.events.pushes.isEmpty)
        for record in server.events.pushes {
            var bytes: [UInt8] = []
            #expect(!RequestLog.acceptedLine(record, into: &bytes))
        }
        // An accepted push whose topic the log must show visibly: refused after the clock, method and
        // token were written into what is gathered, which it leaves as it was.
        var request = PushRequest()
        for (name, value) in [
            (":method", "POST"), (":path", "/3/device/\(Paths.voipToken)"), ("apns-push-type", "voip"),
            ("apns-topic", "com.ringside.testapp.voip\u{1B}[31m"),
        ] {
            request.add(name: name, value: value)
        }
        var ids = MessageIdGenerator(seed: 1)
        let accepted = PushRecord(
            connection: 1, streamId: 1, at: Moment(0), request: request, messageId: ids.nextId(), status: 200)
        var bytes = Array("earlier line\n".utf8)
        #expect(!RequestLog.acceptedLine(accepted, into: &bytes))
        #expect(String(decoding: bytes, as: UTF8.self) == "earlier line\n")
    }
}
