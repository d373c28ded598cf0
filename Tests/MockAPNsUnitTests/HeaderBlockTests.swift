import Foundation
import Testing

@testable import HTTP2Server

/// A connection keeps the previous request's header block and builds the next from it: shared when
/// repeated, written over in place where only values of the same length change (a provider's new
/// `apns-id`, a fan-out's new device token), field by field past the first other difference. Every
/// request must still carry exactly the fields that were sent.
@Suite struct HeaderBlockTests {
    final class Recorder: HTTP2SessionDelegate {
        var requests: [HTTP2Request] = []
        func session(_ session: HTTP2Session, didReceive request: HTTP2Request) { requests.append(request) }
        func session(_ session: HTTP2Session, refusedStream streamId: Int32, _ why: StreamRefusal) {}
    }

    static let base: [(String, String)] = [
        (":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + String(repeating: "ab", count: 32)),
        (":authority", "localhost"), ("apns-id", "00000000-0000-4000-8000-000000000001"),
        ("apns-topic", "com.ringside.testapp.voip"), ("apns-push-type", "voip"), ("apns-priority", "10"),
    ]

    static func with(_ changes: [String: String], _ fields: [(String, String)] = base) -> [(String, String)] {
        fields.map { ($0.0, changes[$0.0] ?? $0.1) }
    }

    @Test("Each request carries exactly the fields sent, however its block differs from the one before")
    func fieldsAsSent() {
        let session = HTTP2Session(limits: HTTP2Limits(), initialMaxConcurrentStreams: 1000)
        let recorder = Recorder()
        session.delegate = recorder
        let feed = HoldingLimitsTests.feeder(session)
        let otherId = "00000000-0000-4000-8000-000000000002"
        let otherPath = "/3/device/" + String(repeating: "cd", count: 32)
        let blocks: [(String, [(String, String)])] = [
            ("the first", Self.base),
            ("the same again", Self.base),
            ("a new apns-id", Self.with(["apns-id": otherId])),
            ("a new path and apns-id", Self.with([":path": otherPath, "apns-id": otherId.uppercased()])),
            ("a new apns-id, then a longer value", Self.with(["apns-id": otherId, "apns-priority": "100"])),
            ("a new path, then a field fewer", Array(Self.with([":path": otherPath]).dropLast())),
            ("a new apns-id, then a field more", Self.with(["apns-id": otherId]) + [("apns-collapse-id", "x")]),
            (
                "a new apns-id, then another name",
                Self.with(["apns-id": otherId]).map { $0.0 == "apns-push-type" ? ("apns-push-typf", $0.1) : $0 }
            ),
            ("a new path only", Self.with([":path": otherPath])),
            ("the first again", Self.base),
            ("a shorter path", Self.with([":path": "/3/device/ab"])),
            ("the first once more", Self.base),
        ]
        for (index, (_, fields)) in blocks.enumerated() {
            // END_HEADERS | END_STREAM: a request without a body.
            feed(
                HoldingLimitsTests.frame(
                    type: 1, flags: 5, stream: Int32(2 * index + 1), HoldingLimitsTests.headerBlock(fields)))
        }
        #expect(recorder.requests.count == blocks.count)
        for (request, (what, fields)) in zip(recorder.requests, blocks) {
            let received = request.headers
            #expect(
                received.map(\.name) == fields.map(\.0) && received.map(\.value) == fields.map(\.1),
                "\(what): \(received)")
        }
    }
}
