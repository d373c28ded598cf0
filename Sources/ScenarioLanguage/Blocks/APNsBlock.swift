import APNs
import World

/// `apns:` — the fake APNs: its keys, declared once (`Schema`, `Keywords` and `explain` read them),
/// and their lowering.
enum APNsBlock {
    static let context = "<apns>"
    static let keys: [Option] = [
        Option(
            "environment", .choice(APNsEnvironment.allCases.map(\.rawValue)),
            "sandbox (default) or production: which token space and host the mock is"),
        Option(
            "auth", .choice(ProviderAuthentication.allCases.map(\.rawValue)),
            "token or certificate: how the built-in provider authenticates"),
        Option(
            "certificate", .choice(TestCertificate.allCases.map(\.rawValue)),
            "the provider's client certificate from certs-test (voip, novoip, expired …)"),
        Option(
            "profile", .choice(ValidationSettings.Profile.allCases.map(\.rawValue)),
            "apple (what Apple accepts) or voip-lint (also refuses what a VoIP provider must never send)"),
        Option(
            "folklore", .list(WorldSettings.Folklore.Rule.allCases.map(\.rawValue)),
            "opt-in rules practitioners report and Apple does not document"),
        Option(
            "transport", .choice(APNsTransport.allCases.map(\.rawValue)),
            "tls (default, as APNs) or cleartext: HTTP/2 without TLS (h2c), an opt-in for a provider's local set-up; a cleartext provider fails every other scenario"
        ),
    ]
}

extension Lowering {
    mutating func lowerAPNs(_ node: Node) -> APNsSetup {
        var setup = APNsSetup()
        guard let mapping = mapping(node, key: "apns") else { return setup }
        let block = open(mapping, keys: Schema.apns, context: APNsBlock.context)
        if let environment = word(block, "environment", APNsEnvironment.self) { setup.environment = environment }
        if let profile = word(block, "profile", ValidationSettings.Profile.self) { setup.profile = profile }
        let isBuiltin: Bool
        if case .builtin = provider { isBuiltin = true } else { isBuiltin = false }
        if let entry = block.entry("auth"), let auth = word(block, "auth", ProviderAuthentication.self) {
            if isBuiltin {
                setup.authentication = auth
                setup.declaredAuthentication = auth
            } else {
                report(
                    "Not for this provider", at: entry.keyRange,
                    "<auth> chooses how the built-in provider authenticates; an exec or http provider chooses for itself"
                )
            }
        }
        if let entry = block.entry("certificate"), let certificate = word(block, "certificate", TestCertificate.self) {
            setup.certificate = certificate
            if isBuiltin, setup.authentication != .certificate {
                report(
                    "Not used", at: entry.keyRange,
                    "the built-in provider uses <certificate> only with <auth: certificate>; add it or drop this line")
            }
        }
        for rule in words(block, "folklore", WorldSettings.Folklore.Rule.self, what: "rule names") {
            setup.folklore.insert(rule)
        }
        if let entry = block.entry("transport"), let transport = word(block, "transport", APNsTransport.self) {
            setup.transport = transport
            if transport == .cleartext, isBuiltin, setup.authentication == .certificate {
                report(
                    "Needs TLS", at: entry.keyRange,
                    "a client certificate needs TLS; drop <auth: certificate> or <transport: cleartext>")
            }
            cleartext = transport == .cleartext
        }
        return setup
    }
}
