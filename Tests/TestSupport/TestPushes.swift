import APNs
import Provider

extension OutgoingPush {
    /// `count` VoIP pushes from alice to the test token (`Paths.voipToken`), calls `call-0`,
    /// `call-1` …, each with its own apns-id, drawn from a generator seeded with `seed`.
    public static func voipBatch(_ count: Int, seed: UInt64) -> [OutgoingPush] {
        var ids = MessageIdGenerator(seed: seed)
        return (0..<count).map { index in
            OutgoingPush.voip(
                token: Paths.voipToken, bundleId: "com.ringside.testapp", callUUID: "call-\(index)", caller: "alice",
                apnsId: ids.next())
        }
    }

    /// The `apns-id` the push carries, if any: APNs answers a well-formed one with the same id.
    public var sentApnsId: String? { headers.first { $0.name == "apns-id" }?.value }
}
