import APNs
import Foundation
import MockAPNs
import TestSupport
import Testing

/// The fault that needs TLS, armed through the control API and seen by curl (the other faults are
/// tested in memory, in MockAPNsUnitTests).
@Suite(.serialized) struct CertificateFaultTests {
    @Test("A server certificate from a CA the provider does not trust: the handshake fails until disarmed")
    func untrustedServerCertificate() throws {
        let world = try WorldServer(acceptsUnknownTokens: true)
        try world.control("POST", "/faults", ["action": "untrusted-server-certificate"])
        let refused = try Curl.applePush(world.server)
        #expect(refused.status == 0)
        #expect(refused.stderr.contains("certificate"), "\(refused.stderr)")
        try world.control("DELETE", "/faults")
        #expect(try Curl.applePush(world.server).status == 200)
    }
}
