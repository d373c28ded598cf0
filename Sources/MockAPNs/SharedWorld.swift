import APNs
import CLinux
import Foundation
import HTTP2Server
import Synchronization
import World

/// The world as the mock shares it between its event loops and the control API: one lock around
/// the pure `World`, and a ticker that plays scheduled events as the world clock moves.
/// Unchecked Sendable: `world` and `settings` are written under `lock`, `stopping` under `stopFlag`;
/// `acceptsUnknownTokens` and `onFinished` are set before serving; `measuresBusyTime` is an atomic (WorldBench
/// turns it on while the ticker runs).
public final class SharedWorld: DeviceDirectory, @unchecked Sendable {
    private let lock = NSLock()
    private var world: World {
        didSet { worldReference = Unmanaged.passUnretained(world) }
    }
    /// `world` without its ownership, for a visit: read with the lock held, when no reset can
    /// replace it. Each read of `world` itself was a retain and a release on the world object's
    /// header, a line the event loops and the ticker take from each other (six times a visit).
    private var worldReference: Unmanaged<World>
    public let seed: UInt64
    public private(set) var settings: WorldSettings
    /// Where the app reads the call (`WorldSettings.callPaths`), read before the lock: fixed when the
    /// world is made (a scenario's provider says it; `reset` keeps it).
    private let callPaths: CallPaths?
    private var ticker: JoinableThread?
    private let stopFlag = NSCondition()
    private var stopping = false
    /// Whether any phone exists, readable without the lock: without `--world` and before any phone is
    /// added, every device token is unknown and accepted, and the world can be skipped on the hot path.
    private let hasPhones = Atomic<Bool>(false)
    /// Where the token table lies (`TokenTableHint`), readable without the lock; written (under
    /// `lock`) only when the table moved. One word, the base (page aligned) with log2 of the size in
    /// its low bits: as two, a reader could pair a new small table's base with an old large mask,
    /// and read past the table's end (an adversary's finding).
    private let tableHint = Atomic<UInt>(0)
    private var storedTableHint: TokenTableHint {
        let word = tableHint.load(ordering: .relaxed)
        return TokenTableHint(base: word & ~63, mask: (1 << Int(word & 63)) - 1)
    }
    private static func packed(_ hint: TokenTableHint) -> UInt {
        precondition(hint.base & 63 == 0 && (hint.mask + 1) & hint.mask == 0, "the token table is page aligned")
        return hint.base | UInt((hint.mask + 1).trailingZeroBitCount)
    }
    /// Where the phones lie and how many there are (`World.phoneTableHint`), written the same way.
    /// Two words: a reader that pairs one table's base with another's count only asks for memory
    /// that is not a phone, and a prefetch never faults.
    private let phonesBase = Atomic<UInt>(0)
    private let phonesCount = Atomic<Int>(0)

    /// When set, time spent inside the world (lock held) is added up, for `bench/world.sh`.
    public var measuresBusyTime: Bool {
        get { measuringBusyTime.load(ordering: .relaxed) }
        set { measuringBusyTime.store(newValue, ordering: .relaxed) }
    }
    private let measuringBusyTime = Atomic<Bool>(false)
    private let busyNanoseconds = Atomic<UInt64>(0)
    private let busyCPUNanoseconds = Atomic<UInt64>(0)
    /// Wall time with the lock held (a holder preempted by another process counts its wait).
    public var busySeconds: Double { Double(busyNanoseconds.load(ordering: .relaxed)) / 1e9 }
    /// The same, with the ticker's visits timed by its thread's CPU clock: a tick holds the lock for
    /// a thousand pushes and more, long enough to be preempted, and the CPU clock is a system call
    /// only the ticker can afford (once a tick, not once a push). The visits of a push are short
    /// and timed by the wall clock, which can only count more.
    public var busyCPUSeconds: Double { Double(busyCPUNanoseconds.load(ordering: .relaxed)) / 1e9 }
    /// The ticker's part of `busyCPUSeconds` (the rest is the pushes' own visits).
    public var tickerCPUSeconds: Double { Double(tickerCPUNanoseconds.load(ordering: .relaxed)) / 1e9 }
    private let tickerCPUNanoseconds = Atomic<UInt64>(0)
    /// Called with pushes whose outcome became final (outside the lock).
    var onFinished: (@Sendable ([FinishedPush]) -> Void)?

    public init(settings: WorldSettings = WorldSettings(), seed: UInt64 = 1) {
        callPaths = settings.callPaths
        self.seed = seed
        self.settings = settings
        let world = World(settings: settings, seed: seed)
        self.world = world
        worldReference = Unmanaged.passUnretained(world)
    }

    /// Pushes taken in by `admit` whose request line is not written yet (see `OwedLines`).
    private let owedLines = OwedLines()

    /// Runs `body` with the world locked, then reports outcomes that became final.
    @discardableResult
    public func withWorld<T>(_ body: (World) throws -> T) rethrows -> T {
        try withWorld(timedByCPU: false, body)
    }

    private func withWorld<T>(timedByCPU: Bool, _ body: (World) throws -> T) rethrows -> T {
        var finished: [FinishedPush] = []
        return try withWorld(timedByCPU: timedByCPU, reusing: &finished, body)
    }

    /// `withWorld` with the caller's array for the pushes that finished, emptied after they are told
    /// and kept for the next visit (the ticker's): a fresh array a tick, for a thousand pushes and more,
    /// was fresh pages to fault in with the lock held.
    private func withWorld<T>(
        timedByCPU: Bool, reusing finished: inout [FinishedPush], _ body: (World) throws -> T
    ) rethrows -> T {
        let result = try visit(timedByCPU: timedByCPU, finished: &finished, body)
        if !finished.isEmpty { tell(finished) }
        finished.removeAll(keepingCapacity: true)
        return result
    }

    /// Runs `body` with the world locked; returns what it returned, and adds the pushes that
    /// finished to `finished`.
    private func visit<T>(
        timedByCPU: Bool = false, finished: inout [FinishedPush], _ body: (World) throws -> T
    ) rethrows -> T {
        acquire()
        let result: T
        let forgotten: ForgottenPushes
        do {
            (result, forgotten) = try holding(timedByCPU: timedByCPU, finished: &finished, body)
        } catch {
            lock.unlock()
            throw error
        }
        lock.unlock()
        // A forgotten generation is destroyed here, after the lock is let go, and its storage goes
        // back to the world for the next one (about once in `kept / 2` pushes).
        // Moved, not copied: a second reference would make emptying it allocate fresh storage.
        if forgotten.count > 0 {
            var emptied = consume forgotten
            emptied.destroyEntries()
            lock.lock()
            world.reuse(consume emptied)
            lock.unlock()
        }
        return result
    }

    /// What a visit does with the lock held, in a frame of its own: `bench/world-profile.sh` counts
    /// the CPU samples with this function on their stack as the world's.
    @inline(never)
    private func holding<T>(
        timedByCPU: Bool, finished: inout [FinishedPush], _ body: (World) throws -> T
    ) rethrows -> (T, ForgottenPushes) {
        var started = timespec()
        var startedCPU = timespec()
        // The monotonic clock (vDSO): the thread CPU clock is a system call, which cost the bench
        // about 1 µs a push more than a preemption inside the lock does.
        if measuresBusyTime {
            clock_gettime(CLOCK_MONOTONIC, &started)
            if timedByCPU { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &startedCPU) }
        }
        let (result, forgotten) = try worldReference._withUnsafeGuaranteedRef { world in
            let result = try body(world)
            world.takeFinishedPushes(into: &finished)
            let forgotten = world.takeForgotten()
            // Stored only when changed: a store on every visit took the line from the other event
            // loops' caches, and their next read of it before the lock was a miss.
            let worldHasPhones = world.hasPhones
            if hasPhones.load(ordering: .relaxed) != worldHasPhones {
                hasPhones.store(worldHasPhones, ordering: .releasing)
            }
            let hint = world.tokenTableHint
            if hint != storedTableHint { tableHint.store(Self.packed(hint), ordering: .relaxed) }
            let phones = world.phoneTableHint
            if phones.base != phonesBase.load(ordering: .relaxed)
                || phones.count != phonesCount.load(ordering: .relaxed)
            {
                phonesBase.store(phones.base, ordering: .relaxed)
                phonesCount.store(phones.count, ordering: .relaxed)
            }
            return (result, forgotten)
        }
        if measuresBusyTime {
            func since(_ start: timespec, _ clock: clockid_t) -> UInt64 {
                var ended = timespec()
                clock_gettime(clock, &ended)
                let nanoseconds = (ended.tv_sec - start.tv_sec) * 1_000_000_000 + (ended.tv_nsec - start.tv_nsec)
                return UInt64(max(0, nanoseconds))
            }
            let wall = since(started, CLOCK_MONOTONIC)
            busyNanoseconds.add(wall, ordering: .relaxed)
            let cpu = timedByCPU ? since(startedCPU, CLOCK_THREAD_CPUTIME_ID) : wall
            busyCPUNanoseconds.add(cpu, ordering: .relaxed)
            if timedByCPU { tickerCPUNanoseconds.add(cpu, ordering: .relaxed) }
        }
        return (result, forgotten)
    }

    /// Tells the observers of outcomes, holding back those of pushes whose request line is still owed.
    private func tell(_ finished: [FinishedPush]) {
        let ready = owedLines.ready(finished)
        if !ready.isEmpty, let onFinished { onFinished(ready) }
    }

    /// Takes the lock, trying a while before sleeping for it: a visit holds it for a few
    /// microseconds, and in a load the event loops met each other there, each sleep and wake-up
    /// costing more than the wait (`perf record -e sched:sched_switch`: the loops slept on it
    /// 19,500 times in a 600,000-call load, 6,000 to 7,500 with these tries, while the cores stood
    /// idle a tenth of the time).
    private func acquire() {
        for _ in 0..<Self.tries {
            if lock.try() { return }
            ringside_cpu_relax()
        }
        lock.lock()
    }

    /// How often `acquire` tries before it sleeps.
    static let tries = 100

    /// A fresh world with the same seed (and new settings, when given). The limits `serve` was started
    /// with (`--keep`, the pending bound) are the process's, not the world's: they carry over (an
    /// adversary found `--keep` lost after POST /reset).
    public func reset(settings: WorldSettings? = nil) {
        lock.lock()
        if let settings { self.settings = settings }
        let (kept, pending) = (world.keptPushes, world.maximumPending)
        world = World(settings: self.settings, seed: seed)
        world.keptPushes = kept
        world.maximumPending = pending
        owedLines.clear()
        hasPhones.store(false, ordering: .releasing)
        lock.unlock()
    }

    /// When set, a well-formed device token no phone has is accepted (200) and goes nowhere: `serve` without
    /// `--world`, for quick experiments with made-up tokens. A faithful world answers BadDeviceToken.
    /// Unchecked: set before serving, read on every push (a dynamic exclusivity check was 80
    /// instructions a push).
    @exclusivity(unchecked) public var acceptsUnknownTokens = false

    public func lookup(token: String, topic: String, environment: APNsEnvironment, now: Double) -> DeviceLookup {
        if acceptsUnknownTokens, !hasPhones.load(ordering: .acquiring) { return .active }
        return withWorld { answer($0, token: token, topic: topic, environment: environment, at: now) }
    }

    /// The device check and, when the device token is active, the push's entry into the world, in one visit
    /// (the mock asks when the device check is the validator's last). With `.active`, the push's
    /// number: its outcome is held back until `told(_:)` says its request line is written.
    func admit(
        _ push: AcceptedPush, environment: APNsEnvironment, body: [UInt8], apnsId: MessageId, at now: Double
    ) -> (DeviceLookup, number: Int?) {
        if acceptsUnknownTokens, !hasPhones.load(ordering: .acquiring) { return (.active, nil) }
        // The payload and the token are read before the lock: every other push waits while it is held.
        // The token's slot is read first, and the phone it names is asked for: both are in the
        // cache when the lookup comes, and the payload is read meanwhile. Asked for only (the slot
        // prefetched), each was still a miss with the lock held: the phone's a tenth of the world's
        // samples in `bash bench/world-profile.sh`, the slot's half as much.
        let token = TokenValue(hex: push.deviceToken)
        if let token, let phone = storedTableHint.phone(of: token, environment: environment) {
            askForPhone(phone)
        }
        // The push's entry is built before the lock too: its identity's allocation and the retains
        // of the request's strings made every other push wait.
        var arriving = ArrivingPush(push, call: CallInfo(body: body, paths: callPaths), apnsId: apnsId, at: now)
        var finished: [FinishedPush] = []
        let (answer, number) = visit(finished: &finished) { world -> (DeviceLookup, Int?) in
            owedLines.prepare(world.nextPushNumber)
            world.prepareForPush()
            let (answer, number) = world.admit(
                push, token: token, environment: environment, arriving: &arriving,
                acceptsUnknown: acceptsUnknownTokens, at: now)
            if let number { owedLines.owe(number) }
            return (answer, number)
        }
        if !finished.isEmpty { tell(finished) }
        return (answer, number)
    }

    /// Asks for the memory of phone `phone` that a push's admission reads (its apps, from
    /// `VirtualPhone.apps` to the end), if the hint names a phone: a guess, never read here.
    private func askForPhone(_ phone: Int) {
        guard phone < phonesCount.load(ordering: .relaxed) else { return }
        let apps = phonesBase.load(ordering: .relaxed) &+ UInt(phone &* Self.phoneStride &+ Self.appsOffset)
        ringside_prefetch_lines(UnsafeRawPointer(bitPattern: apps), Self.phoneStride - Self.appsOffset)
    }

    private static let phoneStride = MemoryLayout<VirtualPhone>.stride
    private static let appsOffset = MemoryLayout<VirtualPhone>.offset(of: \VirtualPhone.apps)!

    /// Push `number`'s request line is written: its outcome may be told.
    func told(_ number: Int) {
        let held = owedLines.paid(number)
        if !held.isEmpty, let onFinished { onFinished(held) }
    }

    /// An accepted push enters the world.
    func accept(_ push: AcceptedPush, environment: APNsEnvironment, body: [UInt8], apnsId: MessageId, at now: Double) {
        if acceptsUnknownTokens, !hasPhones.load(ordering: .acquiring) { return }
        let call = CallInfo(body: body, paths: callPaths)
        withWorld { enter($0, push, environment: environment, call: call, apnsId: apnsId, at: now) }
    }

    /// What the world says of a device token (the world locked): without `--world`, an unknown one is active.
    private func answer(
        _ world: World, token: String, topic: String, environment: APNsEnvironment, at now: Double
    ) -> DeviceLookup {
        let answer = world.lookup(token: token, topic: topic, environment: environment, at: now)
        return answer == .unknown && acceptsUnknownTokens ? .active : answer
    }

    /// The push enters the world (locked); returns its number. Without `--world`, a push to a token
    /// no phone holds is not recorded: it reaches nothing, and a load test must not grow the history.
    @discardableResult
    private func enter(
        _ world: World, _ push: AcceptedPush, environment: APNsEnvironment, call: CallInfo, apnsId: MessageId,
        at now: Double
    ) -> Int? {
        if acceptsUnknownTokens, !world.knows(token: push.deviceToken, environment: environment) { return nil }
        return world.accept(push, environment: environment, call: call, apnsId: apnsId, at: now)
    }

    /// Plays scheduled events every `interval` seconds of wall time, up to the clock's world time.
    public func startTicking(clock: any WorldClock, interval: Double = 0.02) throws(ServerError) {
        // The default stack of a thread (8 MB): the ticker also runs the observers of outcomes.
        ticker = try JoinableThread(name: "ringside-world", stackSize: 8 << 20) { [weak self] in
            var finished: [FinishedPush] = []
            while let self, !self.isStopping(waiting: interval) {
                self.withWorld(timedByCPU: true, reusing: &finished) { $0.run(until: clock.now().world) }
            }
        }
    }

    /// Stops the ticker and waits for it to end (unless this is the ticker, releasing the world).
    public func stopTicking() {
        stopFlag.lock()
        stopping = true
        stopFlag.broadcast()
        stopFlag.unlock()
        guard let ticker else { return }
        if ticker.isCurrent { ticker.detach() } else { ticker.join() }
    }

    private func isStopping(waiting seconds: Double) -> Bool {
        stopFlag.lock()
        defer { stopFlag.unlock() }
        if !stopping { _ = stopFlag.wait(until: Date().addingTimeInterval(seconds)) }
        return stopping
    }

    deinit { stopTicking() }
}
