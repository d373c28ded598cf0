import TestSupport
import Testing

@testable import MockAPNs

/// An embedded mock goes when its last user lets go of it, TLS or not: its `deinit` closes the
/// connections still open (which drops their scheduled actions).
@Suite struct EmbeddedMockLifetimeTests {
    @Test("A mock in memory is freed when let go", arguments: [true, false])
    func freedWhenLetGo(plaintext: Bool) throws {
        weak var freed: EmbeddedMock?
        do {
            let mock = try MemoryMock(acceptsUnknownTokens: true) { $0.plaintext = plaintext }
            freed = mock.embedded
            #expect(freed != nil)
        }
        #expect(freed == nil, "the \(plaintext ? "cleartext" : "TLS") mock outlived its last user")
    }
}
