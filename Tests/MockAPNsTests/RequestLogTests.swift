import APNs
import Foundation
import TestSupport
import Testing

@testable import MockAPNs

/// `serve`'s log writes an accepted push's line as bytes (issue 30): the same text as the general
/// path, for the pushes it takes, and the general path for every other.
@Suite(.serialized) struct RequestLogTests {
    @Test("An accepted push's line written as bytes reads exactly as the general path writes it")
    func bytesMatchTheGeneralLine() throws {
        let server = try MockServer()
        #expect(try Curl.applePush(server).status == 200)
        #expect(try Curl.applePush(server, headers: ["apns-push-type": nil]).status == 200)
        #expect(try Curl.applePush(server, token: String(repeating: "0f", count: 32)).status == 200)
        #expect(try Curl.applePush(server, headers: ["apns-priority": "7"]).status == 400)
        let records = server.events.pushes
        #expect(records.count == 4)
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
        #expect(fast == 3)
    }

    @Test("A field the log must show visibly (a backslash, a control byte) takes the general path")
    func outsideTextTakesTheGeneralPath() throws {
        let server = try MockServer(settings: ValidationSettings(profile: .apple))
        _ = try Curl.applePush(server, headers: ["apns-topic": #"com.ringside.testapp.voip\x"#])
        for record in server.events.pushes {
            var bytes: [UInt8] = []
            #expect(!RequestLog.acceptedLine(record, into: &bytes))
        }
    }
}
