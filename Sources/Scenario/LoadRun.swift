import APNs
import CLinux
import Foundation
import MockAPNs
import ScenarioLanguage
import Synchronization
import World

/// Ctrl-C during a load (issue 48): the first stops placing calls, and what ran is judged; the
/// second ends the run (`InterruptStopsProviders`).
public enum LoadInterrupt {
    private static let state = Mutex<(running: Int, requested: Bool)>((0, false))

    /// Asks the running loads to stop; false when none runs or it was asked already (then quit).
    public static func request() -> Bool {
        state.withLock { state in
            guard state.running > 0, !state.requested else { return false }
            state.requested = true
            return true
        }
    }

    static var isRequested: Bool { state.withLock { $0.requested } }
    static func began() { state.withLock { $0.running += 1 } }
    static func ended() { state.withLock { $0.running -= 1 } }
}

/// A `load` step run (issue 48): its population added to the world and registered with the
/// provider, its calls placed at the plan's rate in real time (slept on loopback, passed by hand
/// in memory), each to a user drawn with the scenario's seed. What it placed is kept for `expect
/// load` (`LoadFigures`), read once the provider has settled.
struct LoadRun {
    /// One call the load placed.
    struct Call: Sendable {
        var uuid: String
        /// Its id as a key (`CallKey`): the tally and the world key their tables by it.
        var key: CallKey
        /// Its callee, by the population's index.
        var callee: Int
        /// World time when it was placed: a ring's latency is from here.
        var placedAt: Double
        /// What keeps its phone from ringing, by the population's shares (nil: nothing).
        var trait: String?
    }

    let plan: LoadPlan
    /// How many calls were placed.
    private(set) var placed = 0
    /// The population's phones, by index in the world: `load-1` is the first.
    private(set) var phones: [Int] = []
    /// Each phone's trait (`Call.trait`), by the population's index.
    private(set) var traits: [String?] = []
    /// The callee of each VoIP token the population registers (`LoadTally.key`).
    private(set) var callees: [UInt64: Int32] = [:]

    init(_ plan: LoadPlan) { self.plan = plan }

    /// The phones, their traits drawn with `seed`: a trait is a share of the population, each phone
    /// at most one; `load-1`, the hot user, is always reachable.
    mutating func populate(_ world: SharedWorld, seed: UInt64, at now: Double) {
        var random = SeededGenerator(seed: seed ^ 0x10ad)
        let count = plan.phones
        var order = Array(1..<count)
        order.shuffle(using: &random)
        func take(_ share: Double) -> ArraySlice<Int> {
            let wanted = min(order.count, Int((share * Double(count)).rounded()))
            defer { order.removeFirst(wanted) }
            return order.prefix(wanted)
        }
        let offline = Set(take(plan.offline))
        let uninstalled = Set(take(plan.uninstalled))
        let focus = Set(take(plan.doNotDisturb))
        let silent = Set(take(plan.neverReports))
        world.withWorld { world in
            world.reserve(phones: world.phones.count + count)
            callees.reserveCapacity(count)
            for index in 0..<count {
                var app = AppSpec(bundleId: ScenarioPlan.testBundleId)
                if silent.contains(index) { app.behaviour = .neverReports }
                let id = world.addPhone(name: Self.name(index), apps: [app], at: now)
                phones.append(id)
                if let token = world.token(phone: id, bundleId: ScenarioPlan.testBundleId, kind: .voip) {
                    callees[LoadTally.key(token)] = Int32(index)
                }
                if focus.contains(index) { world.change(phone: id, .doNotDisturb(true), at: now) }
            }
        }
        traits = (0..<count).map {
            offline.contains($0)
                ? "offline"
                : uninstalled.contains($0)
                    ? "uninstalled"
                    : focus.contains($0) ? "do-not-disturb" : silent.contains($0) ? "never-reports" : nil
        }
        self.offline = offline
        self.uninstalled = uninstalled
    }

    private var offline: Set<Int> = []
    private var uninstalled: Set<Int> = []

    static func name(_ index: Int) -> String { "load-\(index + 1)" }

    /// Registers every phone's VoIP token for its user, then takes the uninstalled ones' apps
    /// away and the offline ones off the network. With several `lanes`, each phone's token goes to
    /// the lane its calls will (`placeCalls`).
    /// `progress` hears how many are registered, every second; Ctrl-C stops registering too.
    func register(
        _ world: SharedWorld, with lanes: [any ProviderDriver], at now: () -> Double, clock: any WaitingClock,
        progress: ((Int) -> Void)?
    ) throws {
        LoadInterrupt.began()
        defer { LoadInterrupt.ended() }
        var lastProgress = clock.wall
        for (index, id) in phones.enumerated() {
            if LoadInterrupt.isRequested { break }
            if let progress, clock.wall - lastProgress >= Self.progressEvery {
                lastProgress = clock.wall
                progress(index)
            }
            guard
                let token = world.withWorld({
                    $0.token(phone: id, bundleId: ScenarioPlan.testBundleId, kind: .voip)
                })
            else { continue }
            try lanes[index % lanes.count].register(user: Self.name(index), token: token, kind: .voip)
        }
        let at = now()
        world.withWorld { world in
            for index in uninstalled {
                world.apply(.uninstall, phone: phones[index], bundleId: ScenarioPlan.testBundleId, at: at)
            }
            for index in offline { world.change(phone: phones[index], .online(false), at: at) }
        }
    }

    /// Places every call at its time, open-loop as SIPp does: `noted` records the calls due (on this
    /// thread, a visit of the world for all of them), `answered` hears when the provider is done
    /// with them,
    /// `ask` asks the provider — on up to `concurrency` threads at once, so that a provider slow to
    /// answer one call (retrying through a 503 storm) does not hold back the calls due meanwhile
    /// (with one, a provider that retried froze the load and met a one-second storm with 3 pushes).
    /// With all of them busy the next call waits: the load then runs behind, and its status says
    /// so. Calls already due when the last were asked about go together, up to `batch` of them (a
    /// provider that pushes them at once, as the built-in one does, is not held to one push per
    /// round trip). With `lanes`, each callee's calls go to one lane (`callee % lanes`, as
    /// `register` registered them), a worker each; a lane with nothing to do is asked about its
    /// calls as soon as they are due, so that one lane pushes while another reads its answers and
    /// builds its next pushes (one lane left the mock idle a quarter of the time, `bench/load.sh`).
    /// `progress` hears of the run so far every second.
    mutating func placeCalls(
        seed: UInt64, clock: any WaitingClock, worldNow: () -> Double, concurrency: Int, batch: Int,
        threaded: Bool, lanes: Int = 1,
        noted: ([Call]) -> Void,
        ask: @escaping @Sendable (_ calls: [PlacedCall], _ lane: Int) throws -> Void,
        answered: @escaping @Sendable (_ calls: [Call]) -> Void,
        progress: ((LoadRun, _ seconds: Double) -> Void)?
    ) throws {
        var random = SeededGenerator(seed: seed ^ 0xca11)
        var ids = MessageIdGenerator(seed: seed ^ 0x1d5)
        let start = clock.wall
        var lastProgress = start
        var lastGiveBack = start
        LoadInterrupt.began()
        defer { LoadInterrupt.ended() }
        let lanes = max(1, lanes)
        let asking = AskingPool(concurrency: concurrency, threaded: threaded, lanes: lanes)
        defer { asking.drain() }
        var due = [[Call]](repeating: [], count: lanes)
        /// How many of each lane's calls due were noted already (`noteDue`).
        var notedDue = [Int](repeating: 0, count: lanes)
        /// Notes the calls due for `lane` not noted yet: placed, though their lane is still busy
        /// (the status counts them placed, at their time).
        func noteDue(_ lane: Int) {
            guard notedDue[lane] < due[lane].count else { return }
            noted(Array(due[lane][notedDue[lane]...]))
            notedDue[lane] = due[lane].count
        }
        func askAboutDue(_ lane: Int) throws {
            guard !due[lane].isEmpty else { return }
            noteDue(lane)
            notedDue[lane] = 0
            let placed = due[lane]
            let calls = placed.map { PlacedCall(user: Self.name($0.callee), callUUID: $0.uuid) }
            due[lane].removeAll(keepingCapacity: true)
            try asking.ask(lane: lane) {
                try ask(calls, lane)
                answered(placed)
            }
        }
        for index in 0..<plan.calls {
            if LoadInterrupt.isRequested { break }
            if let failure = asking.failure { throw failure }
            let dueAt = start + plan.offset(ofCall: index)
            // Ahead of time: the calls due are asked about, and the next is waited for. With lanes,
            // a busy lane's calls wait for it, not the others': they are looked at again every
            // `laneLook` while it works (asking it would wait out its batch, a back-off included).
            while dueAt > clock.wall {
                var waiting = false
                for lane in 0..<lanes where !due[lane].isEmpty {
                    if lanes == 1 || !asking.isThreaded || asking.isIdle(lane: lane) {
                        try askAboutDue(lane)
                    } else {
                        noteDue(lane)
                        waiting = true
                    }
                }
                let wait = dueAt - clock.wall
                if wait > 0 { clock.pause(waiting ? min(wait, Self.laneLook) : wait) }
            }
            let callee =
                Double.random(in: 0..<1, using: &random) < plan.hotUser
                ? 0 : Int.random(in: 0..<plan.phones, using: &random)
            let id = Self.callId(&ids)
            let lane = callee % lanes
            due[lane].append(
                Call(uuid: id.uuid, key: id.key, callee: callee, placedAt: worldNow(), trait: traits[callee]))
            placed += 1
            if due[lane].count >= max(1, batch) {
                // This lane may be busy and keep this thread waiting: first the other lanes that are
                // free take what is due for them, or they would wait as long.
                for other in 0..<lanes where other != lane && asking.isIdle(lane: other) { try askAboutDue(other) }
                try askAboutDue(lane)
            } else if lanes > 1 && asking.isIdle(lane: lane) {
                try askAboutDue(lane)
            }
            if let progress, clock.wall - lastProgress >= Self.progressEvery {
                lastProgress = clock.wall
                progress(self, clock.wall - start)
            }
            if clock.wall - lastGiveBack >= Self.givesBackMemoryEvery {
                lastGiveBack = clock.wall
                _ = ringside_give_back_free_memory()
            }
        }
        // Calls placed are asked about, Ctrl-C or not: they are counted.
        for lane in 0..<lanes { try askAboutDue(lane) }
        asking.drain()
        if let failure = asking.failure { throw failure }
    }

    /// Calls asked about together when they are due at once: twice the streams APNs lets be open
    /// on one connection (the mock's SETTINGS, as Apple's: 1,000), the rest held by nghttp2 until a
    /// stream closes, so that a lane's pushes keep going while it reads the first answers. One lane
    /// with 1,000 spent a quarter of the load between batches (reading the last answers, building
    /// the next pushes) with the mock idle.
    static let callsAtOnce = 2000

    /// The built-in provider's lanes in a load: a connection, a worker and a mock event loop each
    /// (`ScenarioRunner`). Four lanes, or three with three loops, were no faster than two on this
    /// 2-core machine (`bench/load.sh`, 600,000 calls).
    static let lanes = 2

    /// How often calls due for a busy lane are looked at while the next call is not yet due.
    static let laneLook = 0.005

    /// How often a load says how far it got (`ringside run` redraws its status on a terminal, and
    /// writes it every few seconds in a CI log).
    static let progressEvery = 1.0

    /// How often a load hands the free pages inside glibc's heaps back to the kernel (malloc_trim,
    /// a millisecond or two). The soak of `bench/load.sh` kept its live heap flat (heaptrack) while
    /// its resident memory grew by 6% in four minutes: pages freed inside the arenas, kept.
    static let givesBackMemoryEvery = 10.0

    /// Calls asked of an `http` service at once: enough for a 503 storm's retries not to hold
    /// back a few hundred calls a second, few enough for a machine's threads and sockets.
    static let concurrentCalls = 64

    /// A version-4 UUID from `ids`, in lower case, with its key: spelled by `MessageIdGenerator`,
    /// not by `UUID.uuidString`, whose formatting (printf) was a twentieth of the runner's work a
    /// call in `bench/load.sh` (perf).
    static func callId(_ ids: inout MessageIdGenerator) -> (uuid: String, key: CallKey) {
        let bits = ids.nextBits()
        let key = CallKey(high: bits.high, low: bits.low)
        return (key.description, key)
    }
}

/// The provider asked about a load's calls on up to `concurrency` threads at once; with one and not
/// `threaded`, on the caller's thread (a worker of its own lets the next calls be placed while it
/// pushes the last: the built-in provider and the mock then each keep a core busy). With `lanes`,
/// one worker a lane, each asked about one batch at a time. The first error a call met stops the
/// load (`LoadRun.placeCalls`).
final class AskingPool: Sendable {
    private let concurrency: Int
    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let firstFailure = Mutex<(any Error)?>(nil)

    private let threaded: Bool

    /// Each lane's one worker: a serial queue, whose thread is kept from call to call. A thread each
    /// made a steady load create a thread a call (2,000 a second in `bench/load.sh`'s soak), and
    /// their memory arenas grew the run by a tenth over ten minutes.
    private let workers: [DispatchQueue]
    /// Whether each lane's worker has a batch.
    private let busy: Mutex<[Bool]>

    init(concurrency: Int, threaded: Bool, lanes: Int = 1) {
        self.concurrency = max(1, concurrency)
        self.threaded = threaded || concurrency > 1
        let lanes = self.concurrency > 1 ? 1 : max(1, lanes)
        slots = DispatchSemaphore(value: self.concurrency)
        workers = (0..<lanes).map { DispatchQueue(label: "ringside.load.provider.\($0)") }
        free = (0..<lanes).map { _ in DispatchSemaphore(value: 1) }
        busy = Mutex(Array(repeating: false, count: lanes))
    }

    /// Each lane's one batch at a time.
    private let free: [DispatchSemaphore]

    var failure: (any Error)? { firstFailure.withLock { $0 } }

    /// Whether it asks on workers of its own (else on the caller's thread, at once).
    var isThreaded: Bool { threaded }

    /// Whether `lane`'s worker has nothing to do: asking it now does not wait.
    func isIdle(lane: Int) -> Bool { threaded && busy.withLock { !$0[lane] } }

    func ask(lane: Int = 0, _ body: @escaping @Sendable () throws -> Void) throws {
        if !threaded { return try body() }
        let gate = concurrency == 1 ? free[lane] : slots
        gate.wait()
        group.enter()
        if concurrency == 1 { busy.withLock { $0[lane] = true } }
        let work: @Sendable () -> Void = { [self] in
            do { try body() } catch { firstFailure.withLock { if $0 == nil { $0 = error } } }
            if concurrency == 1 { busy.withLock { $0[lane] = false } }
            gate.signal()
            group.leave()
        }
        if concurrency == 1 { return workers[lane].async(execute: work) }
        // Several at once: a thread each, not a concurrent queue. On Linux a queue runs about one
        // block per core while the others wait, and each block here waits on the provider
        // (measured: a Python service met a one-second storm with 6 pushes through a queue).
        let thread = Thread(block: work)
        thread.stackSize = 1 << 19
        thread.start()
    }

    /// Waits for every call asked about to be answered.
    func drain() { group.wait() }
}

/// What a load's calls came to, for `expect load` and the report: read from the world's stories of
/// the pushes (by call id) and the mock's answers.
struct LoadFigures {
    var calls: Int
    /// Calls to phones that could ring (online, installed, no Focus, an app that reports).
    var reachable: Int
    var rang: Int
    /// Ring latencies of the calls that rang, sorted (seconds from the call).
    var latencies: [Double]
    /// Calls that did not ring, by what happened to them, most first.
    var missedBy: [(cause: String, count: Int)]
    /// The first missed reachable calls, with their stories.
    var worst: [String]
    /// Calls missed by each cause word (`LoadExpectation.causes`): a call counts once for each of
    /// its words (its outcome, its reason, its callee's share), with the first few of them.
    var missedByWord: [String: (count: Int, first: [String])] = [:]
    var deadTokenPushes: Int
    var throttled: Int
    var connections: Int
    /// Requests to APNs during the scenario.
    var requests: Int

    init(
        calls: Int, reachable: Int, rang: Int, latencies: [Double], deadTokenPushes: Int, throttled: Int,
        connections: Int, requests: Int
    ) {
        self.calls = calls
        self.reachable = reachable
        self.rang = rang
        self.latencies = latencies
        missedBy = []
        worst = []
        self.deadTokenPushes = deadTokenPushes
        self.throttled = throttled
        self.connections = connections
        self.requests = requests
    }

    /// The calls that did not ring (yet), in the order they were placed: by cause, the first few
    /// with their stories, and by each word `missed-by-at-most` names.
    mutating func miss(_ calls: [(uuid: String, call: LoadTally.Waiting)]) {
        var missed: [String: Int] = [:]
        for (uuid, call) in calls {
            let cause =
                call.kind.map { [$0, call.reason].compactMap { $0 }.joined(separator: " ") }
                ?? "no push reached the phone" + (call.trait.map { " (\($0))" } ?? "")
            missed[cause, default: 0] += 1
            let story = "call \(uuid) to \(LoadRun.name(call.callee)): " + (call.story ?? "no push reached the phone")
            // The calls the provider could have rung come first among those shown.
            if call.trait == nil, worst.count < 3 { worst.append(story) }
            let words = call.kind.map { [$0, call.reason].compactMap { $0 } } ?? ["no-push"]
            for word in Set(words + (call.trait.map { [$0] } ?? [])) {
                var entry = missedByWord[word] ?? (0, [])
                entry.count += 1
                if entry.first.count < 3 { entry.first.append(story) }
                missedByWord[word] = entry
            }
        }
        missedBy = missed.map { ($0.key, $0.value) }.sorted { $0.count > $1.count }
    }

    /// The latency at `percentile` (nearest rank), nil with no call rung.
    func latency(_ percentile: Int) -> Double? { Self.nearestRank(latencies, percentile) }

    /// The value at `percentile` of `sorted` (nearest rank), nil when it is empty.
    static func nearestRank(_ sorted: [Double], _ percentile: Int) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((Double(percentile) / 100 * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }

    /// Answers from APNs by status, most first (`200 ×117, 410 ×3`).
    var answers: [(status: Int, count: Int)] = []

    /// The status a running load shows: how far it got, at what rate, what became of the calls so
    /// far, and APNs's answers (SIPp's screen, in three lines).
    func status(label: String, of total: Int, seconds: Double, target: Double) -> [String] {
        let rate = seconds > 0 ? Double(calls) / seconds : 0
        let missed = missedBy.prefix(3).map { "\($0.count) \($0.cause)" }.joined(separator: ", ")
        let p = [50, 99].compactMap { percentile in latency(percentile).map { "p\(percentile) \(Self.seconds($0))" } }
        return [
            "load \(label): \(calls) of \(total) calls placed in \(String(format: "%.1f", seconds)) s, "
                + String(format: "%.1f/s (target %g/s)", rate, target),
            "  rang \(rang)" + (missed.isEmpty ? "" : "; not rung (yet): \(missed)"),
            "  ring latency " + (p.isEmpty ? "none yet" : p.joined(separator: ", ")) + "; APNs: "
                + (answers.isEmpty
                    ? "no answer yet" : answers.map { "\($0.status) ×\($0.count)" }.joined(separator: ", "))
                + "; \(connections) connection\(connections == 1 ? "" : "s")",
        ]
    }

    /// The figures as the transcript's `load-summary` line keeps them (latencies in ms).
    func transcriptFields(label: String, of planned: Int) -> [(String, TranscriptWriter.Value)] {
        [
            ("label", .text(label)), ("calls", .integer(calls)), ("planned", .integer(planned)),
            ("reachable", .integer(reachable)), ("rang", .integer(rang)),
            ("ringP50Ms", .milliseconds(latency(50))), ("ringP95Ms", .milliseconds(latency(95))),
            ("ringP99Ms", .milliseconds(latency(99))), ("ringMaxMs", .milliseconds(latencies.last)),
            ("missedBy", .counts(missedBy.map { ($0.cause, $0.count) })),
            ("answers", .counts(answers.map { (String($0.status), $0.count) })),
            ("requests", .integer(requests)), ("throttled", .integer(throttled)),
            ("deadTokenPushes", .integer(deadTokenPushes)), ("connections", .integer(connections)),
        ]
    }

    /// The summary line a load prints, and the transcript and report keep.
    var summary: String {
        let share = calls == 0 ? 100 : Double(rang) / Double(calls) * 100
        let p = [50, 95, 99].compactMap { percentile in latency(percentile).map { "p\(percentile) \(Self.seconds($0))" }
        }
        return
            "\(calls) calls (\(reachable) to phones that could ring): \(rang) rang (\(String(format: "%.1f", share))%)"
            + (p.isEmpty ? "" : ", ring latency " + p.joined(separator: ", "))
            + (missedBy.isEmpty
                ? "" : "; missed: " + missedBy.prefix(4).map { "\($0.count) \($0.cause)" }.joined(separator: ", "))
            + "; \(throttled) answered 429, \(deadTokenPushes) pushed to a dead token, \(connections) connection\(connections == 1 ? "" : "s")"
    }

    static func seconds(_ value: Double) -> String {
        value < 1 ? "\(Int((value * 1000).rounded())) ms" : String(format: "%.2f s", value)
    }
}

/// A load second by second (SIPp's periodic statistics), from its start: what `--load-csv` writes
/// and the report plots. Second `n` counts what happened from `n` to `n + 1` seconds after the
/// first call (world time); a ring's latency counts in the second it rang.
public struct LoadSeries: Sendable {
    public struct Second: Sendable {
        public var placed = 0
        public var rang = 0
        /// Pushes that ended without a ring, by outcome (`not-delivered`, `app-killed` …).
        public var missed: [String: Int] = [:]
        /// APNs's answers, by status.
        public var answers: [Int: Int] = [:]
        public var connections = 0
        /// Ring latencies of the calls that rang in this second, until it is summarised.
        var latencies: [Double] = []
        /// The percentiles of its latencies, once summarised (`SeriesBuilder`).
        var percentiles: [Int: Double] = [:]

        /// The ring latency at `percentile` of the calls that rang in this second (50, 95 or 99).
        public func latency(_ percentile: Int) -> Double? {
            percentiles[percentile] ?? LoadFigures.nearestRank(latencies.sorted(), percentile)
        }

        mutating func add(_ latency: Double) { latencies.append(latency) }

        /// Its percentiles kept, its latencies let go.
        mutating func summarise() {
            guard !latencies.isEmpty else { return }
            latencies.sort()
            for percentile in [50, 95, 99] { percentiles[percentile] = LoadFigures.nearestRank(latencies, percentile) }
            latencies = []
        }
    }

    public var label: String
    public var seconds: [Second]
    /// The load's figures in a line (`LoadFigures.summary`).
    public var summary: String
    /// Faults armed before the load, by second (the report marks them).
    public var faults: [(second: Int, action: String)] = []

    init(label: String, seconds: [Second], summary: String) {
        self.label = label
        self.seconds = seconds
        self.summary = summary
    }

    /// Loads as CSV, a row a second each, their scenario's file first: SIPp's periodic statistics
    /// for a spreadsheet or a plot. The columns are the union of every load's outcomes and statuses.
    public static func csv(_ loads: [(scenario: String, series: LoadSeries)]) -> String {
        let statuses = Set(loads.flatMap { $0.series.seconds.flatMap { $0.answers.keys } }).sorted()
        let outcomes = Set(loads.flatMap { $0.series.seconds.flatMap { $0.missed.keys } }).sorted()
        var rows = [
            (["scenario", "second", "placed", "rang", "ring_p50_ms", "ring_p99_ms"] + outcomes.map { "missed_\($0)" }
                + statuses.map { "apns_\($0)" } + ["connections"]).joined(separator: ",")
        ]
        for (scenario, series) in loads {
            // A file name is quoted as CSV quotes a field: in double quotes, each one doubled.
            let name = "\"" + scenario.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            for (index, second) in series.seconds.enumerated() {
                let latency = { (p: Int) in second.latency(p).map { String(Int(($0 * 1000).rounded())) } ?? "" }
                rows.append(
                    ([name, String(index), String(second.placed), String(second.rang), latency(50), latency(99)]
                        + outcomes.map { String(second.missed[$0] ?? 0) }
                        + statuses.map { String(second.answers[$0] ?? 0) } + [String(second.connections)])
                        .joined(separator: ","))
            }
        }
        return rows.joined(separator: "\n") + "\n"
    }
}
