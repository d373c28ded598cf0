import Foundation
import Scenario
import TestSupport
import Testing

/// certs-test/client-voip.legacy.p12 is the default pair in the one PKCS#12 form Go's
/// golang.org/x/crypto/pkcs12 reads (sideshow/apns2's `certificate.FromP12File`): a SHA-1 MAC, key and
/// certificate encrypted with pbeWithSHA1And3-KeyTripleDES-CBC, and exactly one certificate beside the
/// key (a CA as a third bag is refused: "expected exactly two safe bags").
@Suite struct LegacyP12Tests {
    static let legacy = Paths.certs + "/client-voip.legacy.p12"
    static let modern = Paths.certs + "/client-voip.p12"

    static func openssl(_ arguments: [String]) throws -> CommandResult {
        try run("/usr/bin/env", ["openssl"] + arguments)
    }

    /// How `bundle` falls short of what x/crypto/pkcs12 reads, from `openssl pkcs12 -info`; empty
    /// when it reads.
    static func shortfalls(_ bundle: String) throws -> [String] {
        let info = try openssl(["pkcs12", "-info", "-in", bundle, "-passin", "pass:ringside", "-nokeys", "-noout"])
        let lines = (info.stdout + info.stderr).split(separator: "\n").map(String.init)
        var found: [String] = []
        if !lines.contains(where: { $0.hasPrefix("MAC: sha1,") }) {
            found.append("MAC: \(lines.first { $0.hasPrefix("MAC:") } ?? "none")")
        }
        let encrypted = lines.filter { $0.hasPrefix("PKCS7 Encrypted data:") || $0.hasPrefix("Shrouded Keybag:") }
        if encrypted.count != 2 || !encrypted.allSatisfy({ $0.contains(": pbeWithSHA1And3-KeyTripleDES-CBC,") }) {
            found.append("encryption: \(encrypted)")
        }
        let certificates = lines.filter { $0 == "Certificate bag" }.count
        if certificates != 1 { found.append("\(certificates) certificates") }
        return found
    }

    @Test(
        "The legacy .p12 has a SHA-1 MAC, 3DES for its key and its certificate, and one certificate; OpenSSL 3's default .p12 has none of these"
    )
    func format() throws {
        #expect(try Self.shortfalls(Self.legacy) == [])
        // The same check on the modern bundle: SHA-256 MAC, PBES2 with AES-256-CBC, and the CA as a second certificate.
        let modern = try Self.shortfalls(Self.modern)
        #expect(modern.count == 3, "\(modern)")
        #expect(modern.first?.contains("sha256") == true, "\(modern)")
    }

    /// The SHA-256 fingerprint of the client certificate in `bundle` (`-clcerts`: the one with a key).
    static func certificateFingerprint(inBundle bundle: String) throws -> String {
        let pem = NSTemporaryDirectory() + "ringside-p12-\(UUID().uuidString).pem"
        defer { try? FileManager.default.removeItem(atPath: pem) }
        _ = try openssl(["pkcs12", "-in", bundle, "-passin", "pass:ringside", "-nokeys", "-clcerts", "-out", pem])
        return try fingerprint(pem)
    }

    static func fingerprint(_ pem: String) throws -> String {
        try openssl(["x509", "-in", pem, "-noout", "-fingerprint", "-sha256"]).stdout
    }

    /// A key as `openssl pkey` writes it (PKCS#8 PEM), whatever form it was read in.
    static func normalisedKey(_ file: String) throws -> String {
        try openssl(["pkey", "-in", file]).stdout
    }

    @Test("The legacy .p12 holds client-voip.pem and client-voip.key, nothing else")
    func sameCredentials() throws {
        let expected = try Self.fingerprint(Paths.certs + "/client-voip.pem")
        #expect(expected.contains("Fingerprint="), "\(expected)")
        #expect(try Self.certificateFingerprint(inBundle: Self.legacy) == expected)
        // The comparison tells certificates apart: client-novoip's bundle does not match.
        #expect(try Self.certificateFingerprint(inBundle: Paths.certs + "/client-novoip.p12") != expected)

        let key = NSTemporaryDirectory() + "ringside-p12-\(UUID().uuidString).key"
        defer { try? FileManager.default.removeItem(atPath: key) }
        let extracted = try Self.openssl([
            "pkcs12", "-in", Self.legacy, "-passin", "pass:ringside", "-nocerts", "-nodes", "-out", key,
        ])
        #expect(extracted.status == 0, "\(extracted.stderr)")
        let keyPEM = try Self.normalisedKey(key)
        #expect(keyPEM.contains("BEGIN PRIVATE KEY"))
        #expect(keyPEM == (try Self.normalisedKey(Paths.certs + "/client-voip.key")))
        #expect(keyPEM != (try Self.normalisedKey(Paths.certs + "/client-novoip.key")))
    }

    @Test("The contract names the legacy .p12 for the default certificate, and only where one exists")
    func contract() {
        let voip = ProviderContract.environment(url: "", host: "", port: 1, certs: Paths.certs)
        #expect(voip["APNS_CERT_P12_LEGACY_FILE"] == Self.legacy)
        #expect(FileManager.default.fileExists(atPath: voip["APNS_CERT_P12_LEGACY_FILE"] ?? ""))
        let novoip = ProviderContract.environment(
            url: "", host: "", port: 1, certs: Paths.certs, certificate: "novoip")
        #expect(novoip["APNS_CERT_P12_LEGACY_FILE"] == nil)
        #expect(novoip["APNS_CERT_P12_FILE"] == Paths.certs + "/client-novoip.p12")
    }
}
