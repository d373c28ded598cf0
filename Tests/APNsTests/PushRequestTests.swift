import APNs
import Testing

/// `PushRequest.compact`: what a long-lived record (the transcript ring, RingsideTesting) keeps, and
/// whether anything was cut — a record left as it was is not copied.
@Suite struct PushRequestCompactTests {
    static func small() -> PushRequest {
        var request = PushRequest()
        request.add(name: ":method", value: "POST")
        request.add(name: ":path", value: "/3/device/" + String(repeating: "ab", count: 32))
        request.add(name: "apns-topic", value: "com.example.app.voip")
        request.add(name: "user-agent", value: "test")
        request.body = Array(#"{"aps":{}}"#.utf8)
        request.bodyLength = request.body.count
        return request
    }

    @Test("A request within the limit is left as it was, and compact says so")
    func nothingToCut() {
        var request = Self.small()
        #expect(request.compact(keeping: 1024) == false)
        #expect(request.path == Self.small().path && request.body == Self.small().body)
        #expect(request.otherHeaders.count == 1)
    }

    @Test(
        "Each kind of excess is cut, and compact says so",
        arguments: ["body", "topic", "other headers", "duplicates"])
    func eachExcessIsCut(kind: String) {
        var request = Self.small()
        switch kind {
        case "body": request.body = Array(repeating: 120, count: 2000)
        case "topic": request.add(name: "apns-collapse-id", value: String(repeating: "c", count: 2000))
        case "other headers":
            for index in 0..<8 { request.add(name: "x-pad-\(index)", value: String(repeating: "p", count: 200)) }
        default:
            for _ in 0..<10 { request.add(name: "apns-priority", value: "10") }
        }
        #expect(request.compact(keeping: 1024) == true)
        #expect(request.body.count <= 1024)
        #expect((request.collapseId?.utf8.count ?? 0) <= 1024)
        #expect(request.otherHeaders.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } <= 1024)
        #expect(request.duplicatedHeaders.count <= 8)
        #expect(request.compact(keeping: 1024) == false, "a second pass finds nothing more to cut")
    }
}
