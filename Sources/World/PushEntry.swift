import APNs

/// One push as the world keeps it while it remembers it: strings shared with the request (a retain,
/// no copy), the phone as its id, the outcome without repeating the call, the story inline. The
/// public `PushFate` is built from it when asked (`fate`, `remembered`, `takeFinished`).
/// One heap block of its own besides the call id (`Identity`); kept `PushFate`s cost about 1.4 KB each
/// in `bench/world.sh`'s resident memory, with their story's array and copied strings.
struct PushEntry: Sendable {
    /// What never changes once the push is accepted, in one shared block: the world copies an entry
    /// to hand a finished push out under its lock, and one retain there was six (one per string),
    /// each on a line another core wrote (the strings come from the event loops).
    /// Unchecked Sendable: `bundleId` is set once, with the world's lock held, before the entry is
    /// stored (`World.accept`), and never after; the rest are `let`s.
    final class Identity: @unchecked Sendable {
        let apnsId: MessageId
        let token: String
        let topic: String
        let callUUID: String?
        let caller: String?
        /// Known only once the world has found the token's holder; the rest is built before.
        var bundleId: String?

        init(apnsId: MessageId, token: String, topic: String, callUUID: String?, caller: String?) {
            self.apnsId = apnsId
            self.token = token
            self.topic = topic
            self.callUUID = callUUID
            self.caller = caller
        }
    }

    let identity: Identity

    var apnsId: MessageId { identity.apnsId }
    var token: String { identity.token }
    var topic: String { identity.topic }
    var callUUID: String? { identity.callUUID }
    var caller: String? { identity.caller }
    /// The app the token belonged to when the push arrived (nil: no phone holds it).
    var bundleId: String? { identity.bundleId }
    var sentAt: Double
    var expiration: Int64?
    var deliveredAt: Double?
    var finishedAt: Double?
    /// The phone holding the token, or -1 for none.
    var phone: Int32 = -1
    var priority: Priority
    var kind: TokenKind?
    var ending: Ending = .pending
    var chain = ChainLog()
    /// The call id's hash (`CallInfo.uuidHash`), kept in the entry: a report reads it without
    /// touching `identity`.
    var callHash: Int?
    /// The app's index on the phone when the push arrived, and the phone's app layout then
    /// (`AppList.layout`): while the layout is the same, the index names the app.
    var app: (index: Int32, layout: UInt32) = (-1, 0)
    /// The app's `tokenEpoch` when the push arrived: a reinstall or rotation since gave it new tokens,
    /// and this push's token reaches nothing.
    var tokenEpoch: UInt32 = 0
    /// False when the request had no `apns-push-type` (the phone misses such a VoIP push by default).
    var hasPushType = true

    init(
        identity: Identity, sentAt: Double, expiration: Int64?, priority: Priority, phone: Int32, kind: TokenKind?
    ) {
        self.identity = identity
        self.sentAt = sentAt
        self.expiration = expiration
        self.priority = priority
        self.phone = phone
        self.kind = kind
    }

    var isPending: Bool { if case .pending = ending { true } else { false } }

    mutating func note(_ at: Double, _ step: ChainStep) { chain.append(ChainEvent(at: at, step: step)) }

    /// How the push ended, without the call it names (the entry keeps that once).
    enum Ending: Sendable {
        case pending
        case rang
        case rangLate(lateBy: Double)
        case notDelivered(NotDelivered)
        case appKilled(KillRule)
        case callRefused(CallKitError)
        /// Only for a push with a call id (a duplicate is a repeated id).
        case duplicate

        init(_ outcome: RingOutcome) {
            switch outcome {
            case .pending: self = .pending
            case .rang: self = .rang
            case .rangLate(_, _, let late): self = .rangLate(lateBy: late)
            case .notDelivered(let why): self = .notDelivered(why)
            case .appKilled(let rule): self = .appKilled(rule)
            case .callRefused(let error): self = .callRefused(error)
            case .duplicate: self = .duplicate
            }
        }
    }

    var outcome: RingOutcome {
        switch ending {
        case .pending: return .pending
        case .rang: return .rang(callUUID: callUUID, caller: caller)
        case .rangLate(let late): return .rangLate(callUUID: callUUID, caller: caller, lateBy: late)
        case .notDelivered(let why): return .notDelivered(why)
        case .appKilled(let rule): return .appKilled(rule)
        case .callRefused(let error): return .callRefused(error)
        case .duplicate: return .duplicate(callUUID: callUUID ?? "")
        }
    }

    /// The public story of push `number`; `phoneName` names the phone with id `phone`.
    func fate(number: Int, phoneName: String?) -> PushFate {
        var fate = PushFate(
            number: number, messageId: apnsId, token: token, topic: topic, sentAt: sentAt, priority: priority,
            expiration: expiration, callUUID: callUUID, caller: caller)
        fate.phone = phone >= 0 ? Int(phone) : nil
        fate.phoneName = phoneName
        fate.bundleId = bundleId
        fate.kind = kind
        fate.deliveredAt = deliveredAt
        fate.finishedAt = finishedAt
        fate.outcome = outcome
        fate.chain = chain.events
        return fate
    }
}

/// A push's story: the usual five steps (accepted, handed to the app, the reporting rule, reported,
/// rang) inline, more in an array. A heap block per push was a third of the world's cost per push.
struct ChainLog: Sendable {
    private var inline: (ChainEvent?, ChainEvent?, ChainEvent?, ChainEvent?, ChainEvent?) = (nil, nil, nil, nil, nil)
    private var more: [ChainEvent] = []
    private var count = 0

    mutating func append(_ event: ChainEvent) {
        switch count {
        case 0: inline.0 = event
        case 1: inline.1 = event
        case 2: inline.2 = event
        case 3: inline.3 = event
        case 4: inline.4 = event
        default: more.append(event)
        }
        count += 1
    }

    /// The steps in order (the inline ones fill first and are never removed), in one array: an
    /// array of the five, its `compactMap` and the sum with `more` were three (callgrind: 2,900
    /// instructions a push's story).
    var events: [ChainEvent] {
        var events: [ChainEvent] = []
        events.reserveCapacity(count)
        if let event = inline.0 { events.append(event) }
        if let event = inline.1 { events.append(event) }
        if let event = inline.2 { events.append(event) }
        if let event = inline.3 { events.append(event) }
        if let event = inline.4 { events.append(event) }
        events.append(contentsOf: more)
        return events
    }
}
