import APNs
import Foundation
import TestSupport
import Testing

/// Apple's own curl example against the mock, with the real curl (each single mistake is tested in
/// memory, in MockAPNsUnitTests).
@Suite(.serialized) struct AppleExampleTests {
    @Test("Apple's curl example gets HTTP/2 200 and an apns-id")
    func appleExample() throws {
        let server = try MockServer()
        let response = try Curl.applePush(server, extra: ["-H", "apns-id: 123e4567-e89b-12d3-a456-4266554400a0"])
        #expect(response.status == 200)
        #expect(response.headers["apns-id"] == "123e4567-e89b-12d3-a456-4266554400a0")
        #expect(response.body.isEmpty)
        let generated = try Curl.applePush(server)
        #expect(generated.status == 200)
        #expect(UUIDSyntax.isCanonical(generated.headers["apns-id"] ?? ""))
        #expect(generated.headers["apns-unique-id"] != nil, "the sandbox returns apns-unique-id")
        // An id in upper case is canonical too, and answered as sent; each answer's own ids are new.
        let upper = try Curl.applePush(server, extra: ["-H", "apns-id: 123E4567-E89B-12D3-A456-4266554400A0"])
        #expect(upper.headers["apns-id"] == "123E4567-E89B-12D3-A456-4266554400A0")
        let again = try Curl.applePush(server)
        #expect(UUIDSyntax.isCanonical(again.headers["apns-unique-id"] ?? ""))
        #expect(again.headers["apns-id"] != generated.headers["apns-id"])
        #expect(again.headers["apns-unique-id"] != generated.headers["apns-unique-id"])
        #expect(again.headers["apns-unique-id"] != again.headers["apns-id"])
    }
}
