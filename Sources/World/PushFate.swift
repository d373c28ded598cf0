import APNs

/// What became of one accepted push.
public struct PushFate: Sendable {
    public var number: Int
    public var messageId: MessageId
    public var apnsId: String { messageId.description }
    public var token: String
    public var topic: String
    public var sentAt: Double
    public var priority: Priority
    public var expiration: Int64?
    public var callUUID: String?
    public var caller: String?
    public var phone: Int?
    public var phoneName: String?
    public var bundleId: String?
    public var kind: TokenKind?
    public var deliveredAt: Double?
    public var finishedAt: Double?
    public var outcome: RingOutcome = .pending
    public var chain: [ChainEvent] = []

    mutating func note(_ at: Double, _ step: ChainStep) { chain.append(ChainEvent(at: at, step: step)) }

    /// The story in one paragraph.
    public var explanation: String { chain.map { $0.step.text(for: self) }.joined(separator: "; ") }

    /// Each step of the chain in words.
    public var texts: [String] { chain.map { $0.step.text(for: self) } }

    /// The folklore rules that decided anything here.
    public var folkloreUsed: [String] { chain.compactMap(\.folklore) }
}
