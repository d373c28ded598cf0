/// How one push ended on the phone: exactly one of these, with the chain of events that led there.
public enum RingOutcome: Sendable, Equatable {
    /// Still travelling, stored, or waiting for the system's check.
    case pending
    case rang(callUUID: String?, caller: String?)
    /// Rang after the call could have ended (`ringTimeout` after it was placed, else sent): a ghost call.
    case rangLate(callUUID: String?, caller: String?, lateBy: Double)
    case notDelivered(NotDelivered)
    case appKilled(KillRule)
    case callRefused(CallKitError)
    /// A second report of a call id that already rang (`callUUIDAlreadyExists`).
    case duplicate(callUUID: String)

    public var isFinal: Bool { self != .pending }

    /// How a push ended, without the details: the words scenarios expect and reports print.
    public enum Kind: String, Sendable, CaseIterable {
        case rang
        case rangLate = "rang-late"
        case notDelivered = "not-delivered"
        case appKilled = "app-killed"
        case callRefused = "call-refused"
        case duplicate

        /// The reason words an outcome of this kind can carry (none for the others).
        public var reasons: [String] {
            switch self {
            case .notDelivered: return NotDelivered.allCases.map(\.rawValue)
            case .appKilled: return KillRule.allCases.map(\.rawValue)
            case .callRefused: return CallKitError.allCases.map(\.rawValue)
            case .rang, .rangLate, .duplicate: return []
            }
        }
    }

    /// The outcome's kind; nil while it is pending.
    public var finalKind: Kind? {
        switch self {
        case .pending: return nil
        case .rang: return .rang
        case .rangLate: return .rangLate
        case .notDelivered: return .notDelivered
        case .appKilled: return .appKilled
        case .callRefused: return .callRefused
        case .duplicate: return .duplicate
        }
    }

    /// One word for reports and the control API.
    public var kind: String { finalKind?.rawValue ?? "pending" }

    /// The reason word, where there is one.
    public var reason: String? {
        switch self {
        case .notDelivered(let why): return why.rawValue
        case .appKilled(let rule): return rule.rawValue
        case .callRefused(let error): return error.rawValue
        default: return nil
        }
    }
}

public enum NotDelivered: String, Sendable, Codable, CaseIterable {
    case expired
    case offlineNotStored = "offline-not-stored"
    case replacedWhileStored = "replaced-while-stored"
    case appBlocked = "app-blocked"
    case tokenDead = "token-dead"
    case appNotInstalled = "app-not-installed"
    case notAVoIPPush = "not-a-voip-push"
    case notReportedAllowed = "not-reported-allowed"
    case forceQuit = "force-quit"
    case dailyBudget = "daily-budget"
    case lowPriority = "low-priority"
    case noPushType = "no-push-type"
}

/// Which enforcement killed the app (docs/apns-facts.md §8.3).
public enum KillRule: String, Sendable, Codable, CaseIterable {
    /// PKPushRegistry checks when the delegate returns: "Killing app because it never posted an
    /// incoming call to the system after receiving a PushKit VoIP push."
    case delegateReturnedWithoutReport = "delegate-returned-without-report"
    /// callservicesd checks about 7 s after delivery: exception code 0xbaadca11.
    case callServicesCheck = "callservicesd-0xbaadca11"
}

/// `reportNewIncomingCall` errors that mean no ring ([CX-ERR], docs/apns-facts.md §8.4).
public enum CallKitError: String, Sendable, Codable, CaseIterable {
    case unentitled
    case callUUIDAlreadyExists
    case filteredByDoNotDisturb
    case filteredByBlockList
}

/// One step of a push's story, in words a newcomer understands.
public struct ChainEvent: Sendable, Equatable {
    public var at: Double
    public var step: ChainStep

    /// Set when a folklore rule (tag F) decided this step.
    public var folklore: String? { step.folklore }
}
