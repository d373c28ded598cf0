import APNs
import MockAPNs
import World

/// What an expectation is about, for its second verdict at the scenario's end (issue 45): the
/// calls placed up to its line and what happened until the next step. A push that comes later
/// for one of those calls — a job queue's late push, a redelivery — is judged with it; a push for a
/// call placed after the line is the next expectation's.
struct Scope {
    /// The call ids placed up to the expectation's line, lowercased.
    var calls: Set<String>
    /// When the line's verdict was taken.
    var judgedAt: Moment
    /// When the next step that drives the provider began (nil: none came): what came before it is
    /// the line's, whatever call it was for, or none.
    var until: Moment?
    /// The world's pushes when the line was judged, as they stood then: a stored push that rang
    /// later (after `online:`) was judged as it stood; only pushes that came later are added.
    var fatesAtLine: [PushFate]
    /// Where the app reads the call id (`WorldSettings.callPaths`).
    var paths: CallPaths?

    /// Whether a request is the line's: it came before the next step, or it is for one of its calls.
    func admits(_ record: PushRecord) -> Bool {
        if let until, record.at.wall >= until.wall {
            return CallInfo(body: record.request.body, paths: paths).uuid.map { calls.contains($0.lowercased()) }
                ?? false
        }
        return true
    }

    /// Whether another event (a connection, a GOAWAY, a refused stream) is the line's.
    func admits(at moment: Moment) -> Bool { until.map { moment.wall < $0.wall } ?? true }

    func admits(_ event: MockEvent) -> Bool {
        switch event {
        case .push(let record): return admits(record)
        case .connectionOpened(_, _, _, _, let at), .connectionRefused(_, _, let at), .goAway(_, _, _, let at),
            .streamRefused(_, _, _, let at), .connectionClosed(_, _, let at), .settings(_, _, _, let at):
            return admits(at: at)
        case .outcome: return false
        }
    }

    /// The world's pushes as the line sees them at the end: those it judged, as they stood, and
    /// those that came since and are its own (`admits`).
    func fates(atEnd now: [PushFate]) -> [PushFate] {
        let known = Set(fatesAtLine.map(\.number))
        let later = now.filter { fate in
            guard !known.contains(fate.number) else { return false }
            if let until, fate.sentAt >= until.world {
                return fate.callUUID.map { calls.contains($0.lowercased()) } ?? false
            }
            return true
        }
        return fatesAtLine + later
    }

    /// The requests of the line that came after its verdict was taken: what broke it.
    func late(_ records: [PushRecord]) -> [PushRecord] {
        records.filter { $0.at.wall > judgedAt.wall && admits($0) }
    }
}
