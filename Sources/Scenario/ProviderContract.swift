import Foundation
import ScenarioLanguage

/// The provider contract (docs/architecture.md, "The provider contract"): what a provider under test is told
/// about the mock, as environment variables. The credentials are the test ones in `certs-test/`.
public enum ProviderContract {
    public static let keyId = "RINGKEY001"
    public static let teamId = "RINGTEAM01"
    /// The test app's bundle ID, which is also its topic (VoIP pushes add `.voip`).
    public static let topic = ScenarioPlan.testBundleId
    /// The test app's VoIP topic, `<bundle>.voip`: what a VoIP push names in `apns-topic` ([SEND];
    /// docs/apns-facts.md §2.2).
    public static let voipTopic = topic + ".voip"
    /// The password of every `certs-test/client-*.p12` (certs-test/generate.sh).
    public static let p12Password = "ringside"
    /// The certificates that certs-test/generate.sh also bundles as `client-<name>.legacy.p12`: SHA-1 MAC,
    /// 3DES, no CA, which Go's golang.org/x/crypto/pkcs12 (sideshow/apns2) reads and OpenSSL 3's default
    /// bundle is not.
    public static let legacyP12Certificates: Set<String> = ["voip"]

    /// The variables in the order `ringside serve` prints them.
    public static func variables(url: String, host: String, port: UInt16, certs: String, certificate: String = "voip")
        -> [(name: String, value: String)]
    {
        var variables: [(name: String, value: String)] = [
            ("APNS_URL", url), ("APNS_HOST", host), ("APNS_PORT", String(port)),
            ("APNS_CA_FILE", certs + "/ca.pem"), ("APNS_TOPIC", topic),
            ("APNS_VOIP_TOPIC", voipTopic),
            ("APNS_KEY_FILE", certs + "/AuthKey_\(keyId).p8"), ("APNS_KEY_ID", keyId), ("APNS_TEAM_ID", teamId),
            ("APNS_CERT_FILE", certs + "/client-\(certificate).pem"),
            ("APNS_CERT_KEY_FILE", certs + "/client-\(certificate).key"),
            // The same certificate and key as one PKCS#12 bundle, as many providers load them.
            ("APNS_CERT_P12_FILE", certs + "/client-\(certificate).p12"), ("APNS_CERT_P12_PASSWORD", p12Password),
        ]
        // The same bundle in the legacy format, where generate.sh makes one (same password).
        if legacyP12Certificates.contains(certificate) {
            variables.append(("APNS_CERT_P12_LEGACY_FILE", certs + "/client-\(certificate).legacy.p12"))
        }
        return variables
    }

    /// The variables as an environment to merge into a child process's.
    public static func environment(url: String, host: String, port: UInt16, certs: String, certificate: String = "voip")
        -> [String: String]
    {
        Dictionary(
            uniqueKeysWithValues: variables(url: url, host: host, port: port, certs: certs, certificate: certificate)
                .map { ($0.name, $0.value) })
    }
}
