import APNs
import Foundation
import MockAPNs
import ScenarioLanguage
import World

/// Whether a check held.
enum Verdict: Equatable {
    case passed
    case failed
    /// It cannot be judged of this provider (`stopped` of an exec or http provider): shown, not counted.
    case notApplicable
}

/// What a check expected, as the plan's values. Written as text only by `description`, below.
enum Expected: Equatable {
    case outcome(RingOutcome.Kind, reason: String?, phone: String, call: String?, rules: [PhoneRule])
    case connectionRefused(containing: String)
    case refusedStreams(Int)
    /// `count` GOAWAYs with `reason`; nil: at least one.
    case goAways(count: Int?, reason: Reason?)
    /// `count` requests matching `description` (status, reason, phone, header); nil: at least one.
    case requests(count: Int?, matching: String)
    case noPushAfterRefusal(phone: String)
    case refreshedJWT(Bool)
    case retries(atLeast: Int, minimumWait: Double)
    case connections(atMost: Int)
    /// `"false"`: never stopped; `"true"`: stopped for any reason; else stopped for this reason.
    case stopped(String)
    case reconnected(Bool)
    /// A figure over a load's calls, with its threshold (`expect load`), in words.
    case loadFigure(String)
}

/// One push as a failure names it: what APNs answered, on which connection and stream.
struct SeenPush: Equatable {
    var answer: String
    var connection: UInt64
    var stream: Int32
    /// The header the expectation named, as this push carried it (nil: named none; "" absent).
    var header: (name: String, value: String?)?

    init(_ record: PushRecord, header name: String? = nil) {
        answer = record.answer
        connection = record.connection
        stream = record.streamId
        header = name.map { ($0, record.request.header(named: $0)) }
    }

    static func == (a: SeenPush, b: SeenPush) -> Bool {
        a.answer == b.answer && a.connection == b.connection && a.stream == b.stream
            && a.header?.name == b.header?.name && a.header?.value == b.header?.value
    }
}

/// Why the push a phone check rests on is not simply the latest.
enum FateNote: Equatable {
    /// It rang with another call's id, or a made-up one.
    case phantom
    /// It rang after the caller gave up.
    case ghost
    /// A resend of the same call was refused by CallKit as a duplicate.
    case resentDuplicate
}

/// What a check found, as values. Written as text only by `description`, below.
enum Seen: Equatable {
    /// The push a phone check rests on: its outcome, why it was chosen, the call it rang if another
    /// (whose, and this call's id), the rules its story lacks, and which push it was.
    case fate(
        outcome: String, reason: String?, note: FateNote?, anotherCall: (whose: String, thisCall: String)?,
        missingRules: [PhoneRule], push: SeenPush?, apnsId: String)
    /// No request for the phone reached APNs: how many went to other tokens, streams refused
    /// unprocessed and connections refused in the handshake (how many, and why).
    case noPushReachedAPNs(
        sinceLatestCall: Bool, otherRequests: Int, refusedStreams: (count: Int, why: String)?,
        handshakes: (count: Int, why: String)?)
    /// Requests reached APNs and none was delivered: the last answers, and whether there were more.
    case notDelivered(forCall: Bool, answers: [SeenPush], more: Bool)
    /// Connections refused in the handshake, and why.
    case refusals([String])
    case refusedStreams(count: Int, firstWhy: String?)
    case goAways([Reason])
    case requests(matching: Int, of: Int, shown: [SeenPush])
    case pushesAfterRefusal(count: Int, first: SeenPush?)
    case jwt(refreshed: Bool)
    case retries(waits: [Double])
    case connections(opened: Int, refusedInHandshake: Int)
    /// A check only the built-in provider can answer (`key`).
    case notApplicable(key: String)
    case stopped(because: String?)
    case reconnections(afterGoAway: Int, sentAgain: Int, connections: Int)
    /// A figure over a load's calls, and the first calls that missed, with their stories.
    case loadFigure(String, worst: [String])
    /// The runner could not judge it (the provider was still busy): why, and what was seen so far.
    indirect case notJudged(why: String, soFar: Seen)

    static func == (a: Seen, b: Seen) -> Bool { a.description == b.description }
}

// MARK: the text

extension Expected: CustomStringConvertible {
    var description: String {
        switch self {
        case .outcome(let outcome, let reason, let phone, let call, let rules):
            return "\(outcome.rawValue)\(reason.map { " (\($0))" } ?? "") on \(phone)"
                + (call.map { " for call <\($0)>" } ?? "")
                + (rules.isEmpty ? "" : ", by the rules \(rules.map(\.rawValue).joined(separator: ", "))")
        case .connectionRefused(let containing): return "a connection refused: \(containing)"
        case .refusedStreams(let count): return "\(count) stream\(count == 1 ? "" : "s") refused (REFUSED_STREAM)"
        case .goAways(let count, let reason): return "\(count.map(String.init) ?? "a") GOAWAY \(reason?.wire ?? "")"
        case .requests(let count, let matching): return "\(count.map(String.init) ?? "some") \(matching)"
        case .noPushAfterRefusal(let phone): return "no push to \(phone)'s token after APNs refused it for good"
        case .refreshedJWT(let refreshed):
            return refreshed ? "a new JWT after ExpiredProviderToken" : "no new JWT after ExpiredProviderToken"
        case .retries(let atLeast, let minimumWait):
            return atLeast == 0
                ? "no retry sooner than \(Int(minimumWait * 1000)) ms after its answer (none is needed)"
                : "at least \(atLeast) retries with back-off (each after at least \(Int(minimumWait * 1000)) ms)"
        case .connections(let most): return "at most \(most) connection\(most == 1 ? "" : "s") to APNs"
        case .loadFigure(let text): return text
        case .stopped(let stopped):
            return stopped == "false"
                ? "the provider never stopped sending" : "the provider stopped sending: \(stopped)"
        case .reconnected(let reconnected):
            return reconnected
                ? "pushes sent on a new connection after GOAWAY, or sent again on one"
                : "no push sent on a new connection after GOAWAY, none sent again on one"
        }
    }
}

extension SeenPush: CustomStringConvertible {
    /// `push on connection 1, stream 3`, as failures name a push.
    var which: String { "push on connection \(connection), stream \(stream)" }

    var description: String {
        "\(answer) (\(which)"
            + (header.map { ", \($0.name): " + ($0.value.map { "<\($0)>" } ?? "absent") } ?? "") + ")"
    }

    /// A push that came after its expectation's line was judged: which, its apns-id, how much later.
    static func late(_ record: PushRecord, after seconds: Double) -> String {
        "\(SeenPush(record)), apns-id \(record.apnsId), \(Waiting.seconds(seconds)) after the line was judged"
    }
}

extension Seen: CustomStringConvertible {
    var description: String {
        switch self {
        case .fate(let outcome, let reason, let note, let anotherCall, let missingRules, let push, let apnsId):
            var text = outcome + (reason.map { " (\($0))" } ?? "")
            switch note {
            case .phantom: text += " (a phantom ring; a later push does not undo it)"
            case .ghost: text += " (a ghost: it rang after the caller gave up; a later push does not undo that)"
            case .resentDuplicate: text += " (then a resend of the same call was refused as a duplicate)"
            case nil: break
            }
            if let anotherCall {
                text += ", but not this call: \(anotherCall.whose); this call's id is \(anotherCall.thisCall)"
            }
            if !missingRules.isEmpty {
                text += ", and its story shows no \(missingRules.map(\.rawValue).joined(separator: ", "))"
            }
            return text + " — \(push?.which ?? "push") apns-id \(apnsId)"
        case .noPushReachedAPNs(let sinceLatestCall, let others, let refused, let handshakes):
            return "no push reached APNs for this phone\(sinceLatestCall ? " since its latest call" : "")"
                + (others > 0 ? " (\(others) request\(others == 1 ? "" : "s") to other tokens)" : "")
                + (refused.map {
                    "; \($0.count) stream\($0.count == 1 ? " was" : "s were") refused unprocessed (REFUSED_STREAM, \($0.why))"
                } ?? "")
                + (handshakes.map {
                    "; \($0.count) connection\($0.count == 1 ? " was" : "s were") refused in the TLS handshake (\($0.why))"
                } ?? "")
        case .notDelivered(let forCall, let answers, let more):
            return "no push to this phone\(forCall ? " for this call" : "") was delivered; APNs answered "
                + (more ? "… " : "")
                + answers.map { "\($0.answer) (connection \($0.connection))" }.joined(separator: ", ")
        case .refusals(let reasons):
            return reasons.isEmpty
                ? "no connection was refused"
                : "\(reasons.count) refused: " + Array(Set(reasons)).sorted().joined(separator: "; ")
        case .refusedStreams(let count, let why): return "\(count) refused" + (why.map { ": \($0)" } ?? "")
        case .goAways(let sent):
            return sent.isEmpty ? "no GOAWAY" : "GOAWAY " + sent.map(\.wire).joined(separator: ", ")
        case .requests(let matching, let count, let shown):
            return "\(matching) of \(count) requests matched"
                + (count == 0 ? "" : ": " + shown.map(\.description).joined(separator: ", "))
        case .pushesAfterRefusal(let count, let first):
            return "\(count) push\(count == 1 ? "" : "es") after a refusal"
                + (first.map { ", the first: \($0.which), answered \($0.answer)" } ?? "")
        case .jwt(let refreshed): return refreshed ? "the provider signed a new JWT" : "the provider kept its JWT"
        case .retries(let waits):
            return "\(waits.count) retries, after "
                + (waits.isEmpty ? "none" : waits.map { String(format: "%.3f s", $0) }.joined(separator: ", "))
        case .connections(let opened, let refused):
            return "\(opened + refused): \(opened) opened, \(refused) refused in the handshake"
        case .notApplicable(let key):
            return
                "not applicable: <\(key)> is said only by the built-in provider; this requirement's other expectations judge what APNs saw"
        case .stopped(let why): return why.map { "it stopped: \($0)" } ?? "it never stopped"
        case .reconnections(let afterGoAway, let again, let connections):
            return
                "\(afterGoAway) after GOAWAY, \(again) sent again, \(connections) connection\(connections == 1 ? "" : "s")"
        case .loadFigure(let text, let worst):
            return text + (worst.isEmpty ? "" : "; the first that missed: " + worst.joined(separator: "; "))
        case .notJudged(let why, let soFar): return "not judged: \(why). So far: \(soFar)"
        }
    }
}
