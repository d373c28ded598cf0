/// What each request header means to APNs and what a VoIP push should send ([SEND], docs/apns-facts.md §2).
/// `ringside explain` and `send` read it; the words match the server's.
public enum HeaderVocabulary {
    public struct Entry: Sendable {
        public var name: String
        public var meaning: String
        /// What a VoIP push should send, in words.
        public var forVoIP: String
        /// Judges a value for a VoIP push: nil when right, else why not.
        public var judge: @Sendable (String) -> String?
    }

    public static let entries: [Entry] = [
        Entry(
            name: ":method", meaning: "the HTTP method; APNs takes POST only (405 MethodNotAllowed otherwise)",
            forVoIP: "POST", judge: { $0 == "POST" ? nil : "APNs answers 405 MethodNotAllowed to <\($0)>" }),
        Entry(
            name: ":path", meaning: "/3/device/<device token>: which device and app the push is for",
            forVoIP: "/3/device/<the app's PushKit VoIP token>",
            judge: { path in
                guard path.hasPrefix("/3/device/") else { return "not /3/device/<token>: 404 BadPath" }
                let token = String(path.dropFirst("/3/device/".count))
                if token.isEmpty { return "no token: 400 MissingDeviceToken" }
                return DeviceTokenSyntax.isWellFormed(token)
                    ? nil : "not an even number of hex digits: 400 BadDeviceToken"
            }),
        Entry(
            name: "authorization",
            meaning:
                "bearer <JWT>: the provider token for token-based auth (ES256, kid, iss, iat); ignored with a client certificate",
            forVoIP: "bearer <a JWT signed by your .p8 key, reused for 20 to 60 minutes>",
            judge: { $0.lowercased().hasPrefix("bearer ") ? nil : "not 'bearer <JWT>': 403 MissingProviderToken" }),
        Entry(
            name: "apns-topic", meaning: "the topic: the bundle id, plus a suffix for some push types",
            forVoIP: "<bundle id>.voip",
            judge: {
                $0.hasSuffix(".voip")
                    ? nil : "a VoIP push needs <bundle>.voip; the bare bundle id is a regular notification"
            }),
        Entry(
            name: "apns-push-type", meaning: "alert, background, voip, complication, … (must match the topic's suffix)",
            forVoIP: "voip", judge: { $0 == "voip" ? nil : "a VoIP push needs apns-push-type voip" }),
        Entry(
            name: "apns-priority", meaning: "10 send now, 5 mind the device's power, 1 power first (default 10)",
            forVoIP: "10", judge: { $0 == "10" ? nil : "a call must ring now: priority 10; 5 lets APNs hold the push" }),
        Entry(
            name: "apns-expiration",
            meaning:
                "UNIX seconds until which APNs may store and retry; 0 = one attempt, never stored; absent = stored up to 30 days",
            forVoIP: "0",
            judge: { $0 == "0" ? nil : "a stored VoIP push can ring after the call is over (a ghost call): send 0" }),
        Entry(
            name: "apns-id", meaning: "a UUID naming this push; APNs echoes it (or makes one) in its answer",
            forVoIP: "a fresh UUID per push (optional)",
            judge: { UUIDSyntax.isCanonical($0) ? nil : "not a UUID: 400 BadMessageId" }),
        Entry(
            name: "apns-collapse-id", meaning: "merges notifications shown to the user; at most 64 bytes",
            forVoIP: "none (calls are not collapsed)",
            judge: {
                $0.utf8.count <= 64 ? "collapse ids mean nothing to a VoIP push" : "over 64 bytes: 400 BadCollapseId"
            }),
    ]

    public static func entry(_ name: String) -> Entry? {
        entries.first { $0.name == name.lowercased() }
    }
}
