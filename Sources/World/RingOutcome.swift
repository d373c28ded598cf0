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

/// What each reason a push did not ring means and what the provider (or the app) changes, for
/// `ringside explain REASON` (issue 46: "why a push ended not-delivered" said nothing).
extension RingOutcome.Kind {
    public static func advice(forReason reason: String) -> String? {
        if let reason = NotDelivered(rawValue: reason) { return reason.advice }
        if let reason = KillRule(rawValue: reason) { return reason.advice }
        if let reason = CallKitError(rawValue: reason) { return reason.advice }
        return nil
    }
}

extension NotDelivered {
    public var advice: String {
        switch self {
        case .expired:
            return
                "the push's apns-expiration passed before the phone came online. Send a call with apns-expiration: 0: it is delivered now or never, and never rings late."
        case .offlineNotStored:
            return
                "the phone was offline and the push had apns-expiration: 0, so APNs did not store it. That is right for a call; the call is missed, not late."
        case .replacedWhileStored:
            return
                "APNs keeps one push per app for an offline phone; a later one replaced this. Calls should not wait offline: send them with apns-expiration: 0."
        case .appBlocked:
            return
                "iOS stopped delivering VoIP pushes to an app that did not report earlier pushes to CallKit. Report every VoIP push as a call; send messages as alert pushes."
        case .tokenDead:
            return
                "the token was unregistered (the app deleted or the token rotated); APNs answered 410. Forget the token on 410 and push to the newer one."
        case .appNotInstalled:
            return
                "the app is not on the phone. The provider kept a token of a deleted app: forget tokens APNs answers 410 for."
        case .notAVoIPPush:
            return
                "the push went to the regular token or topic, which PushKit never sees. Send calls to the PushKit (VoIP) token with the topic <bundle>.voip and apns-push-type: voip."
        case .notReportedAllowed:
            return
                "the app did not report the push to CallKit, which this phone's iOS allowed (before iOS 13, or the entitlement). No call rang; report every VoIP push."
        case .forceQuit:
            return
                "folklore: the user force-quit the app and iOS withheld VoIP pushes. Nothing a provider can change; an opt-in rule."
        case .dailyBudget:
            return
                "folklore: the app used up a reported daily budget of unreported VoIP pushes. Report every VoIP push to CallKit."
        case .lowPriority:
            return
                "the VoIP push had apns-priority 5 or 1, which Apple says may be delayed or not delivered. Send calls with apns-priority: 10 (or no priority header)."
        case .noPushType:
            return
                "the push had no apns-push-type. Apple says to send the header (required on watchOS 6 and later) and that a push without the right type may be delayed or dropped. Send apns-push-type: voip."
        }
    }
}

extension KillRule {
    public var advice: String {
        switch self {
        case .delegateReturnedWithoutReport:
            return
                "the app's PushKit delegate returned before it reported the call to CallKit, so iOS killed it. The app must call reportNewIncomingCall before the completion handler."
        case .callServicesCheck:
            return
                "the app reported the call too late (about 7 s after the push), so callservicesd killed it (0xbaadca11). Report at once, before any network work."
        }
    }
}

extension CallKitError {
    public var advice: String {
        switch self {
        case .unentitled:
            return
                "CallKit refused the report: the app lacks the VoIP entitlement or CallKit is unavailable in its region. Not the provider's to fix."
        case .callUUIDAlreadyExists:
            return
                "CallKit refused the report: a call with this UUID is already on the phone. Do not push the same call twice; resend only when no answer came."
        case .filteredByDoNotDisturb:
            return
                "CallKit refused the report: Focus (Do Not Disturb) is on and the caller is not allowed through. The user's setting; not the provider's to fix."
        case .filteredByBlockList:
            return
                "CallKit refused the report: the user blocked the caller. The user's setting; not the provider's to fix."
        }
    }
}
