import APNs

/// One step of a push's story, kept small (a million pushes must fit) and put into words on demand.
public enum ChainStep: Sendable, Equatable {
    case accepted
    case noPhone
    case tokenRetired
    case offlineNotStored
    case keptOldest
    case replacedByNewer
    case stored(until: Double)
    case storedExpired
    case backOnline
    case appNotInstalled
    case regularNotification
    case lowPriority(Priority)
    case noPushType
    case appBlocked(kills: Int)
    case forceQuit
    case dailyBudget(Int)
    case handedToApp(ios: OSVersion, delay: Double)
    case completionFirst
    case notWellFormed
    case neverReports
    case blockingRoundTrip(Double)
    case asyncRoundTrip(Double)
    case beforeReportingRule(OSVersion)
    case noReportRequired(newDelegate: Bool, why: NoReportReason)
    case mustReport(newDelegate: Bool)
    case notReportedAllowed
    case killedWhenDelegateReturned(kills: Int, limit: Int)
    case killedByCallServices(check: Double, kills: Int, limit: Int)
    case voipStopped(kills: Int)
    case reported(CallFramework)
    /// The app reports to a framework its iOS does not have (LiveCommunicationKit before 17.4).
    case frameworkUnavailable(CallFramework, OSVersion)
    case unentitled
    case duplicate
    case doNotDisturb
    case blockedCaller
    case rangLate(Double)
    case rang

    public enum NoReportReason: Sendable, Equatable {
        case foreground
        case onCall
        case networkDelay(Double)
    }

    /// The step in words a newcomer understands; names and ids come from the push it belongs to.
    public func text(for fate: PushFate) -> String {
        switch self {
        case .accepted: return "APNs accepted the push (200, apns-id \(fate.apnsId)) for topic \(fate.topic)"
        case .noPhone: return "no phone has this token"
        case .tokenRetired:
            return
                "the token was retired (app reinstalled, token rotated or app deleted); APNs still answers 200 for a while, but no phone has this token any more"
        case .offlineNotStored:
            return
                "the phone is offline and apns-expiration is 0 (or already past): APNs makes one attempt and does not store the push"
        case .keptOldest:
            return
                "the phone is offline and APNs already stores a push for this app; it keeps one per app, here the oldest"
        case .replacedByNewer:
            return
                "a newer push for the same app replaced this one while the phone was offline (APNs stores one per app)"
        case .stored(let until):
            return
                "the phone is offline: APNs stores the push until \(Duration.date(until)) (it keeps one push per app)"
        case .storedExpired: return "the stored push expired before the phone came back online"
        case .backOnline: return "the phone came back online: APNs delivers the stored push"
        case .appNotInstalled: return "the app is no longer installed"
        case .regularNotification:
            return
                "a regular notification reached the phone: it may show a banner, but only a PushKit VoIP push can ring"
        case .lowPriority(let priority):
            return
                "apns-priority \(priority.rawValue) lets APNs group, delay or drop the push to save power: this VoIP push never reaches the app in time to ring"
        case .noPushType:
            return
                "the push has no apns-push-type, which lets APNs delay or drop it: this VoIP push never reaches the app in time to ring"
        case .appBlocked(let kills):
            return
                "the system stopped delivering VoIP pushes to this app after \(kills) unreported pushes; only a reinstall restores it"
        case .forceQuit:
            return
                "the user force-quit the app, and the folklore rule force-quit-blocks-voip drops VoIP pushes until relaunch"
        case .dailyBudget(let budget): return "the folklore rule daily-voip-budget (\(budget) a day) drops this push"
        case .handedToApp(let ios, let delay):
            return
                "PushKit hands the push to \(fate.bundleId ?? "the app") on \(fate.phoneName ?? "the phone") (iOS \(ios)), \(Duration.words(delay)) after it was sent"
        case .completionFirst:
            return
                "the app calls the PushKit completion handler first; it plays no role in the reporting rule (DTS, forum thread 817976)"
        case .notWellFormed: return "the payload lacks a call id or a caller, so the app does not report it"
        case .neverReports: return "the app does not report the push to CallKit"
        case .blockingRoundTrip(let seconds):
            return "the app blocks its delegate for a \(Duration.words(seconds)) network round trip before reporting"
        case .asyncRoundTrip(let seconds):
            return
                "the app starts a \(Duration.words(seconds)) network round trip and returns from the delegate without reporting"
        case .beforeReportingRule(let ios):
            return "iOS \(ios) predates the iOS 13 reporting rule: no report is required"
        case .noReportRequired(let newDelegate, let why):
            let reason: String
            switch why {
            case .foreground: reason = "the app is in the foreground"
            case .onCall: reason = "the phone is already on a call"
            case .networkDelay(let delay): reason = "the push was delayed \(Duration.words(delay)) by the network"
            }
            return newDelegate ? "metadata.mustReport is false: \(reason)" : "no report required: \(reason)"
        case .mustReport(let newDelegate):
            return newDelegate
                ? "metadata.mustReport is true: the app must report the call before the delegate returns"
                : "the iOS 13 rule: the app must report the call before the delegate returns"
        case .notReportedAllowed:
            return "the app did not report the call, which it was allowed not to: nothing rang"
        case .killedWhenDelegateReturned(let kills, let limit):
            return
                "PKPushRegistry kills the app: \"Killing app because it never posted an incoming call to the system after receiving a PushKit VoIP push.\" (unreported push \(kills) of \(limit))"
        case .killedByCallServices(let check, let kills, let limit):
            return
                "callservicesd checks \(Duration.words(check)) after delivery, finds no reported call and kills the app with exception code 0xbaadca11 (unreported push \(kills) of \(limit))"
        case .voipStopped(let kills):
            return
                "after \(kills) unreported pushes the system stops delivering VoIP pushes to this app until it is reinstalled"
        case .reported(let framework):
            return
                "the app reports the call to \(framework.name) (call \(fate.callUUID ?? "without id"), caller \(fate.caller ?? "unknown"))"
        case .frameworkUnavailable(let framework, let ios):
            return
                "the app reports the call to \(framework.name), which iOS \(ios) does not have (it came with iOS \(framework.availableFrom)): no call is reported"
        case .unentitled: return "\(fate.framework.name) refuses: the app is not entitled to report calls"
        case .duplicate:
            return
                "\(fate.framework.name) refuses with callUUIDAlreadyExists: this call already rang (a second push for the same call)"
        case .doNotDisturb:
            return
                "\(fate.framework.name) refuses with filteredByDoNotDisturb: Focus is on and the caller is not allowed through"
        case .blockedCaller:
            return
                "\(fate.framework.name) refuses with filteredByBlockList: the user blocked \(fate.caller ?? "the caller")"
        case .rangLate(let late):
            return
                "the phone rings \(Duration.words(late)) after the call was placed: the caller gave up long ago (a ghost call)"
        case .rang: return "the phone rings"
        }
    }

    /// The rule of APNs or the phone this step shows (`expect phone … rules:`, `ringside coverage`).
    /// Nil for a push that reached no phone: no rule of the phone applies.
    public var rule: PhoneRule? {
        switch self {
        case .accepted: return .accepted
        case .noPhone: return nil
        case .tokenRetired: return .tokenRetired
        case .offlineNotStored: return .expirationZeroNotStored
        case .keptOldest: return .storedKeepsOldest
        case .replacedByNewer: return .storedReplacedByNewer
        case .stored: return .storedWhileOffline
        case .storedExpired: return .storedExpired
        case .backOnline: return .deliveredWhenBackOnline
        case .appNotInstalled: return .appNotInstalled
        case .regularNotification: return .regularNotification
        case .lowPriority: return .lowPriorityMissed
        case .noPushType: return .noPushTypeMissed
        case .appBlocked: return .deliveryBlocked
        case .forceQuit: return .forceQuit
        case .dailyBudget: return .dailyVoIPBudget
        case .handedToApp: return .handedToApp
        case .completionFirst: return .completionBeforeReport
        case .notWellFormed: return .payloadNotWellFormed
        case .neverReports: return .appNeverReports
        case .blockingRoundTrip: return .blockingRoundTrip
        case .asyncRoundTrip: return .asyncRoundTrip
        case .beforeReportingRule: return .beforeIOS13
        case .noReportRequired(_, .foreground): return .noReportInForeground
        case .noReportRequired(_, .onCall): return .noReportDuringCall
        case .noReportRequired(_, .networkDelay): return .noReportAfterNetworkDelay
        case .mustReport(newDelegate: false): return .ios13MustReport
        case .mustReport(newDelegate: true): return .mustReportTrue
        case .notReportedAllowed: return .notReportedAllowed
        case .killedWhenDelegateReturned: return .killedWhenDelegateReturned
        case .killedByCallServices: return .killedByCallServices
        case .voipStopped: return .deliveryStoppedAfterKills
        case .reported(.callKit): return .reportedToCallKit
        case .reported(.liveCommunicationKit): return .reportedToLiveCommunicationKit
        case .frameworkUnavailable: return .frameworkUnavailable
        case .unentitled: return .unentitled
        case .duplicate: return .duplicateCall
        case .doNotDisturb: return .doNotDisturb
        case .blockedCaller: return .blockedCaller
        case .rangLate: return .rangLate
        case .rang: return .rang
        }
    }

    /// The folklore rule (tag F) this step applied, if any.
    public var folklore: String? {
        switch self {
        case .forceQuit: return "force-quit-blocks-voip"
        case .dailyBudget: return "daily-voip-budget"
        default: return nil
        }
    }
}

/// Durations and dates in words.
enum Duration {
    static func words(_ value: Double) -> String {
        // Times from outside (an apns-expiration of Int64.max) can be far beyond any Int of seconds.
        guard value.isFinite, abs(value) < 1e12 else { return "more than 30,000 years" }
        if value < 1 { return "\(Int((value * 1000).rounded())) ms" }
        if value < 120 { return "\(Int(value.rounded())) s" }
        if value < 7200 { return "\(Int((value / 60).rounded())) min" }
        return "\(Int((value / 3600).rounded())) h"
    }

    /// UTC, ISO 8601, without Foundation's formatter (cheap, and the World stays free of it here).
    static func date(_ seconds: Double) -> String {
        // Beyond year 9999 (or before 1970) the calendar is not worth computing, and Int(…) could trap.
        guard seconds.isFinite, seconds >= 0, seconds < 253_402_300_800 else {
            return seconds.isFinite && seconds < 0 ? "before 1970" : "after the year 9999"
        }
        var time = Int(seconds)
        let second = time % 60
        time /= 60
        let minute = time % 60
        time /= 60
        let hour = time % 24
        var days = time / 24
        // Civil from days (Howard Hinnant's algorithm).
        days += 719_468
        let era = days / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z"
    }
}

/// The rules of APNs and the phone a push's story is made of, one per kind of `ChainStep`: the words
/// of `expect phone … rules:` and the rows of `ringside coverage`. Sources: docs/apns-facts.md §7–§8.
public enum PhoneRule: String, Sendable, CaseIterable {
    case accepted
    case tokenRetired = "token-retired"
    case expirationZeroNotStored = "expiration-zero-not-stored"
    case storedWhileOffline = "stored-while-offline"
    case storedKeepsOldest = "stored-keeps-oldest"
    case storedReplacedByNewer = "stored-replaced-by-newer"
    case storedExpired = "stored-expired"
    case deliveredWhenBackOnline = "delivered-when-back-online"
    case appNotInstalled = "app-not-installed"
    case regularNotification = "regular-notification"
    case lowPriorityMissed = "low-priority-missed"
    case noPushTypeMissed = "no-push-type-missed"
    case deliveryBlocked = "delivery-blocked"
    case forceQuit = "force-quit"
    case dailyVoIPBudget = "daily-voip-budget"
    case handedToApp = "handed-to-app"
    case completionBeforeReport = "completion-before-report"
    case payloadNotWellFormed = "payload-not-well-formed"
    case appNeverReports = "app-never-reports"
    case blockingRoundTrip = "blocking-round-trip"
    case asyncRoundTrip = "async-round-trip"
    case beforeIOS13 = "before-ios-13"
    case ios13MustReport = "ios13-must-report"
    case mustReportTrue = "must-report-true"
    case noReportInForeground = "no-report-in-foreground"
    case noReportDuringCall = "no-report-during-call"
    case noReportAfterNetworkDelay = "no-report-after-network-delay"
    case notReportedAllowed = "not-reported-allowed"
    case killedWhenDelegateReturned = "killed-when-delegate-returned"
    case killedByCallServices = "killed-by-callservicesd"
    case deliveryStoppedAfterKills = "delivery-stopped-after-kills"
    case reportedToCallKit = "reported-to-callkit"
    case reportedToLiveCommunicationKit = "reported-to-livecommunicationkit"
    case frameworkUnavailable = "framework-unavailable"
    case unentitled
    case duplicateCall = "duplicate-call"
    case doNotDisturb = "do-not-disturb"
    case blockedCaller = "blocked-caller"
    case rangLate = "rang-late"
    case rang

    /// What the rule says, for `ringside explain` and the coverage table.
    public var summary: String {
        switch self {
        case .accepted: return "APNs answers 200: the push is accepted, which is not yet delivered"
        case .tokenRetired:
            return "a retired token (reinstall, rotation, deletion) still gets 200 for a while and reaches no phone"
        case .expirationZeroNotStored:
            return "apns-expiration 0 (or a time past): one attempt; an offline phone never gets the push"
        case .storedWhileOffline: return "a push with a future expiration is stored while the phone is offline"
        case .storedKeepsOldest: return "APNs stores one push per app while offline: here it keeps the oldest"
        case .storedReplacedByNewer: return "APNs stores one push per app while offline: a newer one replaces it"
        case .storedExpired: return "a stored push whose expiration passed is dropped"
        case .deliveredWhenBackOnline: return "the phone comes back online and APNs delivers the stored push"
        case .appNotInstalled: return "the app was deleted: nothing receives the push"
        case .regularNotification: return "a push to the regular (alert) token is no VoIP push: PushKit never sees it"
        case .lowPriorityMissed:
            return "a VoIP push at priority 5 or 1 may be grouped, delayed or dropped: by default the phone misses it"
        case .noPushTypeMissed:
            return "a VoIP push without apns-push-type may be delayed or dropped: by default the phone misses it"
        case .deliveryBlocked:
            return "the system no longer delivers VoIP pushes to an app that failed to report too often"
        case .forceQuit: return "folklore: a force-quit app gets no VoIP pushes until it is launched again"
        case .dailyVoIPBudget:
            return "folklore: a daily budget of VoIP pushes for apps without an unrestricted entitlement"
        case .handedToApp: return "PushKit hands the push to the app's delegate"
        case .completionBeforeReport: return "the app calls the completion handler before reporting the call"
        case .payloadNotWellFormed: return "the app cannot read the call from the payload and does not report it"
        case .appNeverReports: return "the app never reports the call to CallKit"
        case .blockingRoundTrip: return "the app waits for its server before reporting, blocking the delegate"
        case .asyncRoundTrip: return "the app returns from the delegate and reports after its server answers"
        case .beforeIOS13: return "before iOS 13 an app did not have to report a VoIP push as a call"
        case .ios13MustReport: return "since iOS 13 the app must report the call before the delegate returns"
        case .mustReportTrue: return "iOS 26.4: metadata.mustReport is true, the app must report the call"
        case .noReportInForeground: return "no report is required while the app is in the foreground"
        case .noReportDuringCall: return "no report is required during another call"
        case .noReportAfterNetworkDelay: return "iOS 26.4: no report is required after a long network delay"
        case .notReportedAllowed: return "the app did not report the call, as it was allowed: nothing rang"
        case .killedWhenDelegateReturned: return "PKPushRegistry kills an app whose delegate returned without a report"
        case .killedByCallServices:
            return "callservicesd kills an app that reported no call about 7 s after delivery (0xbaadca11)"
        case .deliveryStoppedAfterKills:
            return "after repeated unreported pushes the system stops delivering VoIP pushes"
        case .reportedToCallKit: return "the app reports the call to CallKit"
        case .reportedToLiveCommunicationKit:
            return "the app reports the call to LiveCommunicationKit (iOS 17.4+), under PushKit's same rule"
        case .frameworkUnavailable:
            return
                "the app reports to LiveCommunicationKit on an iOS before 17.4: nothing is reported, and it is killed"
        case .unentitled: return "CallKit refuses an app without the entitlement"
        case .duplicateCall: return "CallKit refuses a second report of the same call (callUUIDAlreadyExists)"
        case .doNotDisturb: return "CallKit refuses while Focus (Do Not Disturb) is on and the caller is not allowed"
        case .blockedCaller: return "CallKit refuses a caller the user blocked"
        case .rangLate: return "the phone rings after the caller gave up: a ghost call"
        case .rang: return "the phone rings"
        }
    }
}

extension PushFate {
    /// The framework the app reported the push's call to, as its story says (CallKit when it says none).
    public var framework: CallFramework {
        for event in chain {
            if case .reported(let framework) = event.step { return framework }
        }
        return .callKit
    }
}

extension PhoneRule {
    /// Steps of a story that mean the call did not ring as it should: the report's failing steps,
    /// and a failure's first cause (`run --provider-file` groups failures by it).
    public static let failures: Set<PhoneRule> = [
        .rangLate, .doNotDisturb, .blockedCaller, .unentitled, .duplicateCall, .appNotInstalled, .regularNotification,
        .deliveryBlocked, .deliveryStoppedAfterKills, .killedWhenDelegateReturned, .killedByCallServices,
        .expirationZeroNotStored, .storedExpired, .storedReplacedByNewer, .storedKeepsOldest, .notReportedAllowed,
        .forceQuit, .dailyVoIPBudget, .tokenRetired, .lowPriorityMissed, .noPushTypeMissed, .frameworkUnavailable,
    ]
}
