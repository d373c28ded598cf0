import APNs
import CLinux

/// The simulation behind the mock: phones, tokens, delivery, the phone's rules, ring outcomes.
///
/// Pure: no I/O and no clock of its own; every call says what time it is (world time, seconds since
/// 1970), and `run(until:)` plays scheduled events in order. Not thread-safe: the mock guards it.
///
/// Its stored properties skip the dynamic exclusivity check (`@exclusivity(unchecked)`): one thread
/// at a time is inside (the mock's lock), no method hands out an access to its state that outlives
/// the call, and the checks were about 4,000 instructions a push (65 accesses) in `bench/world.sh`.
public final class World {
    @exclusivity(unchecked) public private(set) var settings: WorldSettings
    @exclusivity(unchecked) private var random: SeededGenerator
    @exclusivity(unchecked) public internal(set) var phones: [VirtualPhone] = []
    @exclusivity(unchecked) private var registry = TokenRegistry()
    /// Bumped whenever a token is registered or retired: it invalidates `lastResolved`.
    @exclusivity(unchecked) private var registryGeneration = 0
    /// The last token resolved, found or not (`record` nil): a mock whose device check is not the last
    /// asks twice per push (`lookup`, then `accept`); `admit` searches once and skips it.
    @exclusivity(unchecked) private var lastResolved:
        (hex: String, environment: APNsEnvironment, generation: Int, token: TokenValue?, record: TokenRecord?)?
    /// The pushes the world remembers, by number, and how many are pending (PushMemory.swift).
    @exclusivity(unchecked) var memory = PushMemory()
    /// Pushes the world follows at once: past it the mock answers 503 (a world with a delivery
    /// latency of years, say, would otherwise hold every push ever sent).
    @exclusivity(unchecked) public var maximumPending = 200_000
    /// Whether the world follows `maximumPending` pushes already.
    public var isFull: Bool { memory.pendingCount >= maximumPending }
    /// Pushes accepted whose outcome is not final yet, wherever they are kept.
    public var pendingCount: Int { memory.pendingCount }
    /// How many of the oldest pushes were forgotten or set aside.
    public var forgotten: Int { memory.forgotten }
    /// How many pushes the world remembers at most, pending ones aside.
    public var keptPushes: Int {
        get { memory.keptPushes }
        set { memory.keptPushes = newValue }
    }

    /// Whether any phone exists. Read from another module, `phones.isEmpty` was an exclusivity
    /// check (a thread-local lookup) on every visit of the mock's.
    public var hasPhones: Bool { !phones.isEmpty }

    /// The number the next push accepted will have.
    public var nextPushNumber: Int { memory.nextNumber }

    /// Asks for the memory the next push's entry and its arrival will be written to: the end of
    /// `recent` and of the schedule's queue, lines the lock's last holder wrote on another core.
    /// Asked for together as the lock is taken, they arrive while the token is looked up; met one
    /// after the other, each was a wait with the lock held.
    public func prepareForPush() {
        memory.prepareForPush()
        schedule.prepareForPush()
    }

    /// Asks to write the element after `array`'s last, if its storage has room for it. In place
    /// (`inout`, its address read without a closure): a borrowed or lent array was a retain of
    /// its storage, an atomic write to a line the lock's last holder wrote, a wait before the
    /// first prefetch.
    @inline(__always) static func prefetchForWrite<Element>(after array: inout [Element]) {
        guard let base = array._baseAddressIfContiguous, array.count < array.capacity else { return }
        ringside_prefetch_lines_for_write(base + array.count, MemoryLayout<Element>.stride)
    }

    /// The pushes the world remembers, oldest first.
    public var pushes: [PushFate] { remembered(0..<rememberedCount) }

    /// How many pushes the world remembers.
    public var rememberedCount: Int { memory.count }

    /// A slice of the remembered pushes, oldest first (a page of the control API's `GET /outcomes`).
    /// Not a pure read: finished pushes are dropped from the order first.
    public func remembered(_ range: Range<Int>) -> [PushFate] {
        memory.remembered(range).map { story($0.number, $0.entry) }
    }

    /// A kept entry as the public story, with its phone's name.
    private func story(_ number: Int, _ entry: PushEntry) -> PushFate {
        entry.fate(number: number, phoneName: phoneName(of: entry))
    }

    /// The name of the phone an entry reached (phones are never removed, and keep their names).
    private func phoneName(of entry: PushEntry) -> String? {
        entry.phone >= 0 ? phones[Int(entry.phone)].name : nil
    }

    /// The index of push `number`'s app on phone `id`: the one it had on arrival while the phone's
    /// apps are laid out the same (no search, no read of the push's strings), else by bundle id.
    /// Nil also when the app holds other tokens now (reinstalled, rotated): the push's token is dead.
    func appIndex(of number: Int, phone id: Int) -> Int? {
        let hint = memory.peek(number, { $0.app })
        let index: Int
        if hint.index >= 0, hint.layout == phones[id].apps.layout {
            index = Int(hint.index)
        } else {
            guard let found = phones[id].appIndex(memory.peek(number, { $0.bundleId }) ?? "") else { return nil }
            index = found
        }
        guard phones[id].apps.read(index, { $0.tokenEpoch }) == memory.peek(number, { $0.tokenEpoch }) else {
            return nil
        }
        return index
    }

    @exclusivity(unchecked) var schedule = EventQueue()
    /// Request times per token, for the 429 throttle.
    @exclusivity(unchecked) private var recentRequests: [RegistryKey: LatestValues<Double>] = [:]
    /// Pushes to dead tokens per bundle id, and the end of its penalty (folklore).
    @exclusivity(unchecked) private var deadTokenPushes: [String: Int] = [:]
    @exclusivity(unchecked) private var penaltyUntil: [String: Double] = [:]
    /// Issues of tokens so far: each install, reinstall or rotation takes the next (`VirtualApp.tokenEpoch`).
    @exclusivity(unchecked) private var tokenEpochs: UInt32 = 0
    /// When calls were placed (`callPlaced`): a caller waits from the call, not from APNs' answer.
    @exclusivity(unchecked) var placedCalls = PlacedCalls()

    public init(settings: WorldSettings = WorldSettings(), seed: UInt64 = 1) {
        self.settings = settings
        random = SeededGenerator(seed: seed)
    }

    // MARK: Phones and apps

    /// Adds a phone with its apps; tokens are issued from the seed.
    @discardableResult
    public func addPhone(name: String, online: Bool = true, apps: [AppSpec], at now: Double) -> Int {
        let id = phones.count
        let capacity = phones.capacity
        phones.append(VirtualPhone(id: id, name: name, isOnline: online, apps: []))
        if phones.capacity != capacity { advisePhonesHugePages() }
        for spec in apps { install(spec, phone: id, at: now) }
        return id
    }

    /// Installs an app on a phone (replacing one with the same bundle id) and issues its tokens.
    /// False when the phone does not exist or already holds `VirtualPhone.maximumApps` others.
    @discardableResult
    public func install(_ spec: AppSpec, phone id: Int, at now: Double) -> Bool {
        guard phones.indices.contains(id) else { return false }
        if let index = phones[id].appIndex(spec.bundleId) {
            retireTokens(of: phones[id].apps[index], phone: id, at: now)
            phones[id].apps.remove(at: index)
        } else if phones[id].apps.count >= VirtualPhone.maximumApps {
            return false
        }
        var app = VirtualApp(
            bundleId: spec.bundleId, ios: spec.ios, behaviour: spec.behaviour, environment: spec.environment,
            voipToken: issueToken(), alertToken: issueToken())
        app.isEntitled = spec.isEntitled
        app.framework = spec.framework
        app.tokenEpoch = nextTokenEpoch()
        phones[id].apps.append(app)
        register(app, phone: id, at: now)
        return true
    }

    private func nextTokenEpoch() -> UInt32 {
        tokenEpochs &+= 1
        return tokenEpochs
    }

    private func issueToken() -> TokenValue {
        var bytes = (0..<settings.tokenBytes).map { _ in UInt8.random(in: 0...255, using: &random) }
        // The share this world owns (`tokenPrefix`): its leading hex digits, the rest from the seed.
        if let prefix = settings.tokenPrefix {
            for (index, digit) in prefix.utf8.enumerated() where index / 2 < bytes.count {
                let nibble = digit <= 57 ? digit - 48 : digit - 87
                bytes[index / 2] =
                    index % 2 == 0 ? (bytes[index / 2] & 0x0f) | (nibble << 4) : (bytes[index / 2] & 0xf0) | nibble
            }
        }
        return TokenValue(bytes: bytes)
    }

    private func register(_ app: VirtualApp, phone: Int, at now: Double) {
        registryGeneration += 1
        registry.register(app.voipToken, environment: app.environment, phone: phone, kind: .voip)
        registry.register(app.alertToken, environment: app.environment, phone: phone, kind: .alert)
    }

    /// Prepares for `count` phones (a benchmark registering a million avoids rehashing).
    public func reserve(phones count: Int) {
        phones.reserveCapacity(count)
        advisePhonesHugePages()
        registry.reserve(count * 2)
    }

    /// Where the token table lies now (see `TokenTableHint`).
    public var tokenTableHint: TokenTableHint { registry.hint }

    /// Where the phones lie now, and how many: a hint to ask for a phone's memory before the mock
    /// takes the lock (`SharedWorld.admit`); a stale one is asked for, never read.
    public var phoneTableHint: (base: UInt, count: Int) {
        phones.withUnsafeBufferPointer { (UInt(bitPattern: $0.baseAddress), $0.count) }
    }

    /// Huge pages for the phones' array, all its capacity (see `adviseHugePages`).
    private func advisePhonesHugePages() {
        let base = phones.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        adviseHugePages(base, bytes: phones.capacity * MemoryLayout<VirtualPhone>.stride)
    }

    /// Who holds a token: live (with the app) or retired (with when).
    private func record(_ token: TokenValue, environment: APNsEnvironment) -> TokenRecord? {
        var app = -1
        let entry = registry.live(token, environment: environment) { entry in
            app = appIndex(holding: token, kind: entry.kind, phone: Int(entry.phone), environment: environment) ?? -1
            return app >= 0
        }
        if let entry {
            let phone = Int(entry.phone)
            // An entry the table could not pack was not checked against the app: any environment.
            if app < 0 { app = appIndex(holding: token, kind: entry.kind, phone: phone, environment: nil) ?? -1 }
            if app >= 0 {
                return TokenRecord(
                    phone: phone, bundleId: phones[phone].apps.bundleId(at: app), kind: entry.kind,
                    retiredAt: nil, app: (Int32(app), phones[phone].apps.layout),
                    tokenEpoch: phones[phone].apps.read(app, { $0.tokenEpoch }))
            }
        }
        if let old = registry.retired(token, environment: environment) {
            return TokenRecord(phone: old.phone, bundleId: old.bundleId, kind: old.kind, retiredAt: old.retiredAt)
        }
        return nil
    }

    /// The app of phone `phone` whose token of `kind` is `token` (in `environment`, when given).
    private func appIndex(holding token: TokenValue, kind: TokenKind, phone: Int, environment: APNsEnvironment?)
        -> Int?
    {
        guard phones.indices.contains(phone) else { return nil }
        // Through a pointer: the array's subscript copied the phone's app list out (a memmove and a
        // retain per token), on every push.
        return phones.withUnsafeBufferPointer { phones in
            let phonePointer = UnsafeRawPointer(phones.baseAddress! + phone)
            let apps = phonePointer + MemoryLayout<VirtualPhone>.offset(of: \VirtualPhone.apps)!
            return AppList.index(
                in: apps.assumingMemoryBound(to: AppList.self), holding: token, kind: kind, environment: environment)
        }
    }

    /// Retires an app's tokens: they answer 200 for `unregisterDelay`, delivering nothing, then 410
    /// with this moment as the timestamp ([RESP]; A-DTS thread 795542).
    private func retireTokens(of app: VirtualApp, phone: Int, at now: Double) {
        registryGeneration += 1
        for (token, kind) in [(app.voipToken, TokenKind.voip), (app.alertToken, .alert)] {
            registry.retire(
                token, environment: app.environment, phone: phone, bundleId: app.bundleId, kind: kind, at: now
            ) { entry in
                Int(entry.phone) == phone && entry.kind == kind
                    && appIndex(holding: token, kind: kind, phone: phone, environment: app.environment) != nil
            }
        }
    }

    public enum PhoneChange: Sendable {
        case online(Bool)
        case doNotDisturb(Bool)
        case blockedCallers(Set<String>)
        case vipCallers(Set<String>)
        case activeCall(String?)
    }

    public func change(phone id: Int, _ change: PhoneChange, at now: Double) {
        guard phones.indices.contains(id) else { return }
        switch change {
        case .online(let online):
            let wasOnline = phones[id].isOnline
            phones[id].isOnline = online
            if online, !wasOnline { deliverStored(phone: id, at: now) }
        case .doNotDisturb(let on): phones[id].doNotDisturb = on
        case .blockedCallers(let callers): phones[id].blockedCallers = callers
        case .vipCallers(let callers): phones[id].vipCallers = callers
        case .activeCall(let call): phones[id].activeCall = call
        }
    }

    public enum AppEvent: String, Sendable, CaseIterable {
        /// Delete and install again: new tokens, the old ones die; delivery restored ([REG]; O forum 764376).
        case reinstall
        /// The system issues new tokens ([PK-INVAL]); the old ones die.
        case rotateToken = "rotate-token"
        /// Delete: the tokens die.
        case uninstall
        /// The user logs out: APNs knows nothing of it; the token stays valid (incident 12).
        case logout
        case login
        case relaunch
        case forceQuit = "force-quit"
        case foreground
        case background
    }

    public func apply(_ event: AppEvent, phone id: Int, bundleId: String, at now: Double) {
        guard phones.indices.contains(id), let index = phones[id].appIndex(bundleId) else { return }
        var app = phones[id].apps[index]
        switch event {
        case .reinstall, .rotateToken:
            retireTokens(of: app, phone: id, at: now)
            app.voipToken = issueToken()
            app.alertToken = issueToken()
            app.tokenEpoch = nextTokenEpoch()
            if event == .reinstall {
                app.unreportedKills = 0
                app.isVoIPBlocked = false
                app.isForceQuit = false
            }
            register(app, phone: id, at: now)
        case .uninstall:
            retireTokens(of: app, phone: id, at: now)
            phones[id].apps.remove(at: index)
            return
        case .logout: app.isLoggedIn = false
        case .login: app.isLoggedIn = true
        case .relaunch: app.isForceQuit = false
        case .forceQuit: app.isForceQuit = true
        case .foreground: app.isForeground = true
        case .background: app.isForeground = false
        }
        phones[id].apps[index] = app
    }

    /// The caller placed call `uuid` at world time `time`: a ring is late from then, however long
    /// the provider or its queue took to send the push. Any case names the same call; the latest
    /// `PlacedCalls.capacity` calls are kept.
    public func callPlaced(uuid: String, at time: Double) { placedCalls.record(CallKey(uuid), at: time) }
    public func callPlaced(_ key: CallKey, at time: Double) { placedCalls.record(key, at: time) }

    // MARK: What APNs asks

    /// Whether a token is live for a topic in an environment, as APNs judges it at `now`. Counts the
    /// request for the per-token throttle.
    public func lookup(token hex: String, topic: String, environment: APNsEnvironment, at now: Double) -> DeviceLookup {
        lookup(
            resolve(hex, environment: environment), topic: topic, shape: PushType.TopicShape(of: topic),
            environment: environment, at: now)
    }

    /// The device check and, when the token is active, the push's entry into the world, with one
    /// search for the token, already parsed (the mock parses it before it locks the world). With
    /// `acceptsUnknown` (`serve` without `--world`), a token no phone holds is active and not recorded.
    public func admit(
        _ push: AcceptedPush, token: TokenValue?, environment: APNsEnvironment, arriving: inout ArrivingPush,
        acceptsUnknown: Bool, at now: Double
    ) -> (DeviceLookup, number: Int?) {
        let resolved = token.flatMap { token in record(token, environment: environment).map { (token, $0) } }
        let answer = lookup(resolved, topic: push.topic, shape: push.topicShape, environment: environment, at: now)
        if answer == .unknown, acceptsUnknown { return (.active, nil) }
        guard answer == .active, let resolved else { return (answer, nil) }
        return (answer, accept(&arriving, record: resolved.1, at: now))
    }

    /// `admit` with the push's entry built here (a caller that holds no lock for others).
    public func admit(
        _ push: AcceptedPush, token: TokenValue?, environment: APNsEnvironment, call: CallInfo, apnsId: MessageId,
        acceptsUnknown: Bool, at now: Double
    ) -> (DeviceLookup, number: Int?) {
        var arriving = ArrivingPush(push, call: call, apnsId: apnsId, at: now)
        return admit(
            push, token: token, environment: environment, arriving: &arriving, acceptsUnknown: acceptsUnknown, at: now)
    }

    /// `lookup` once the token is found (nil: unknown, or not a token).
    private func lookup(
        _ resolved: (TokenValue, TokenRecord)?, topic: String, shape: PushType.TopicShape,
        environment: APNsEnvironment, at now: Double
    ) -> DeviceLookup {
        guard let (token, record) = resolved else { return .unknown }
        if !penaltyUntil.isEmpty, let until = penaltyUntil[PushType.bundleId(ofTopic: topic)], now < until {
            return .penalized
        }
        if let retired = record.retiredAt, now >= retired + settings.unregisterDelay {
            noteDeadTokenPush(bundle: PushType.bundleId(ofTopic: topic), at: now)
            return .unregistered(sinceMilliseconds: Int64((retired * 1000).rounded(.down)))
        }
        if !PushType.isTopic(topic, shape: shape, of: record.bundleId) { return .notForTopic }
        let voipTopic = shape.isVoIP
        // The regular token with the .voip topic: DeviceTokenNotForTopic (O: PyAPNs2 #134).
        if record.kind == .alert, voipTopic { return .notForTopic }
        // The PushKit token with the bare bundle id: TopicDisallowed (O: node-apn #658).
        if record.kind == .voip, !voipTopic { return .topicDisallowed }
        if let throttle = settings.throttle {
            // Only the latest count + 1 times matter: more than `count` in the window means the oldest
            // of them is in it. Bounded memory and time per token, however fast a provider pushes.
            let key = RegistryKey(environment: environment, token: token)
            let oldest = recentRequests[key, default: LatestValues()].record(now, keeping: throttle.count + 1)
            forgetQuietTokens(now: now, window: throttle.window)
            if let oldest, oldest > now - throttle.window { return .throttled }
        }
        return isFull ? .full : .active
    }

    /// Tokens whose request times the throttle keeps (a test's figure).
    var throttleTracked: Int { recentRequests.count }

    /// Requests counted since the last sweep of `recentRequests`.
    @exclusivity(unchecked) private var requestsSinceSweep = 0

    /// Every 65,536 requests, the tokens with no request in the throttle's window are forgotten: a
    /// long load over a million phones kept a ring of times for every token it ever pushed (the
    /// soak of `bench/load.sh` grew by a tenth). Only the window's requests can throttle. Removed in
    /// place: a filtered copy held two tables at once, 38 MB more every half minute of the soak.
    private func forgetQuietTokens(now: Double, window: Double) {
        requestsSinceSweep += 1
        guard requestsSinceSweep >= 1 << 16 else { return }
        requestsSinceSweep = 0
        let quiet = Array(recentRequests.lazy.filter { $0.value.newest.map { $0 > now - window } != true }.map(\.key))
        for key in quiet { recentRequests.removeValue(forKey: key) }
    }

    /// When a token stopped being valid (milliseconds since 1970, as a 410's `timestamp`), or nil while
    /// it is valid or unknown. Counts nothing (`ringside replay` reads it for a recorded 410).
    public func retiredAt(token hex: String, environment: APNsEnvironment) -> Int64? {
        guard let (_, record) = resolve(hex, environment: environment), let retired = record.retiredAt else {
            return nil
        }
        return Int64((retired * 1000).rounded(.down))
    }

    /// Whether some phone holds (or held) this token in this environment.
    public func knows(token hex: String, environment: APNsEnvironment) -> Bool {
        resolve(hex, environment: environment) != nil
    }

    /// Parses a token and finds who holds it; remembers the last answer, because the mock asks for
    /// the same token twice per push (the validator's lookup, then `accept`).
    private func resolve(_ hex: String, environment: APNsEnvironment) -> (TokenValue, TokenRecord)? {
        if let last = lastResolved, last.hex == hex, last.environment == environment,
            last.generation == registryGeneration
        {
            guard let token = last.token, let record = last.record else { return nil }
            return (token, record)
        }
        let token = TokenValue(hex: hex)
        let found = token.flatMap { self.record($0, environment: environment) }
        lastResolved = (hex, environment, registryGeneration, token, found)
        guard let token, let found else { return nil }
        return (token, found)
    }

    private func noteDeadTokenPush(bundle: String, at now: Double) {
        guard let limit = settings.folklore.deadTokenPenalty else { return }
        deadTokenPushes[bundle, default: 0] += 1
        if deadTokenPushes[bundle]! >= limit {
            penaltyUntil[bundle] = now + settings.folklore.deadTokenPenaltySeconds
            deadTokenPushes[bundle] = 0
        }
    }

    /// Whether a bundle's pushes are throttled by the folklore dead-token penalty (for the log).
    public func isPenalized(bundleId: String, at now: Double) -> Bool {
        (penaltyUntil[bundleId] ?? 0) > now
    }

    /// An accepted push enters the world; returns its number in `pushes`.
    @discardableResult
    public func accept(
        _ push: AcceptedPush, environment: APNsEnvironment, body: [UInt8], apnsId: MessageId, at now: Double
    ) -> Int {
        accept(
            push, environment: environment, call: CallInfo(body: body, paths: settings.callPaths), apnsId: apnsId,
            at: now)
    }

    /// `accept` with the payload already read (the mock reads it before it locks the world).
    @discardableResult
    public func accept(
        _ push: AcceptedPush, environment: APNsEnvironment, call: CallInfo, apnsId: MessageId, at now: Double
    ) -> Int {
        var arriving = ArrivingPush(push, call: call, apnsId: apnsId, at: now)
        return accept(&arriving, record: resolve(push.deviceToken, environment: environment)?.1, at: now)
    }

    /// `accept` once the token's holder is known (nil: no phone holds it): only what the holder
    /// decides is written here, the rest of the entry came built (`ArrivingPush`).
    private func accept(_ arriving: inout ArrivingPush, record: TokenRecord?, at now: Double) -> Int {
        precondition(!arriving.hasEntered, "a push enters the world once")
        let number = nextPushNumber
        let priority = arriving.entry.priority
        if let record {
            arriving.entry.identity.bundleId = record.bundleId
            arriving.entry.phone = Int32(record.phone)
            arriving.entry.kind = record.kind
            arriving.entry.app = record.app
            arriving.entry.tokenEpoch = record.tokenEpoch
        }
        // Written in place and copied once, into `recent`: handed on by value, the entry (336
        // bytes) was copied six times with the lock held. The caller's copy goes after the lock.
        memory.append(arriving.entry)
        arriving.hasEntered = true
        guard let record else {
            finish(number, .notDelivered(.tokenDead), now, .noPhone)
            return number
        }
        if record.retiredAt != nil {
            finish(number, .notDelivered(.tokenDead), now, .tokenRetired)
            return number
        }
        if phones[record.phone].isOnline {
            scheduleArrival(number, at: now + latency(for: priority))
        } else {
            store(number, phone: record.phone, at: now)
        }
        return number
    }

    private func latency(for priority: Priority) -> Double {
        settings.deliveryLatency + (priority == .immediate ? 0 : settings.lowPriorityDelay)
    }

    // MARK: Time

    /// When the earliest scheduled event is due (world time), if any is.
    public var nextEventAt: Double? { schedule.peek?.at }

    /// Plays every scheduled event up to `now`, in time order.
    public func run(until now: Double) {
        while let next = schedule.peek, next.at <= now {
            schedule.pop()
            // Only finished pushes are forgotten, and a finished push has nothing left to happen.
            if !memory.isRemembered(next.kind.number) { continue }
            switch next.kind {
            case .arrive(let number): arrive(number, at: next.at)
            case .report(let number): report(number, at: next.at)
            case .systemCheck(let number): systemCheck(number, at: next.at)
            case .expire(let number): expire(number, at: next.at)
            }
        }
    }

    private func scheduleArrival(_ number: Int, at time: Double) {
        schedule.push(ScheduledEvent(at: time, kind: .arrive(number)))
    }

    // MARK: Store and forward ([SEND], [METRICS], docs/apns-facts.md §7)

    func store(_ number: Int, phone id: Int, at now: Double) {
        let expiration = memory.peek(number, { $0.expiration })
        // 0, or a time already past (aioapns's time_to_live=0): one attempt, not stored ([SEND]).
        if let expiration, expiration == 0 || Double(expiration) <= now {
            finish(number, .notDelivered(.offlineNotStored), now, .offlineNotStored)
            return
        }
        let expiresAt = expiration.map(Double.init) ?? (now + settings.defaultStorage)
        let bundle = memory.peek(number, { $0.bundleId }) ?? ""
        if let previous = phones[id].stored[bundle] {
            if settings.keepStored == .oldest {
                finish(number, .notDelivered(.replacedWhileStored), now, .keptOldest)
                return
            }
            finish(previous, .notDelivered(.replacedWhileStored), now, .replacedByNewer)
        }
        phones[id].stored[bundle] = number
        memory[push: number].note(now, .stored(until: expiresAt))
        schedule.push(ScheduledEvent(at: expiresAt, kind: .expire(number)))
    }

    private func expire(_ number: Int, at now: Double) {
        let phone = Int(memory.peek(number, { $0.phone }))
        guard memory.peek(number, { $0.isPending }), phone >= 0,
            phones[phone].stored[memory.peek(number, { $0.bundleId }) ?? ""] == number
        else { return }
        phones[phone].stored[memory.peek(number, { $0.bundleId }) ?? ""] = nil
        finish(number, .notDelivered(.expired), now, .storedExpired)
    }

    private func deliverStored(phone id: Int, at now: Double) {
        for (bundle, number) in phones[id].stored {
            phones[id].stored[bundle] = nil
            memory[push: number].note(now, .backOnline)
            scheduleArrival(number, at: now + settings.deliveryLatency)
        }
    }

    func finish(_ number: Int, _ outcome: RingOutcome, _ now: Double, _ step: ChainStep) {
        finish(number, ending: PushEntry.Ending(outcome), now, step)
    }

    /// `finish` with the ending the entry keeps (a ring's outcome names the call, which the entry
    /// keeps once: building it read the call's strings for nothing).
    func finish(_ number: Int, ending: PushEntry.Ending, _ now: Double, _ step: ChainStep) {
        guard memory.peek(number, { $0.isPending }) else { return }
        memory.change(number) { entry in
            entry.ending = ending
            entry.finishedAt = now
            entry.chain.append(ChainEvent(at: now, step: step))
        }
        memory.finished(number)
    }

    /// The pushes whose outcome became final since the last call, for observers (transcript, log).
    /// Then the oldest finished pushes beyond `keptPushes` are forgotten.
    public func takeFinished() -> [PushFate] { takeFinishedPushes().map(\.fate) }

    /// `takeFinished()` with the stories still to be told: the mock tells them after the world's
    /// lock is released (building a `PushFate` is most of the cost of handing one out).
    public func takeFinishedPushes() -> [FinishedPush] {
        var finished: [FinishedPush] = []
        takeFinishedPushes(into: &finished)
        return finished
    }

    /// `takeFinishedPushes()` into the caller's array (appended to).
    public func takeFinishedPushes(into finished: inout [FinishedPush]) {
        memory.takeFinished(into: &finished) { phoneName(of: $0) }
    }

    /// Push `number`, while it is remembered.
    public func fate(_ number: Int) -> PushFate? {
        guard memory.isRemembered(number) else { return nil }
        return story(number, memory[push: number])
    }

    /// The pushes forgotten last, for the caller to destroy once it has let go of the world's lock
    /// (`SharedWorld`): freeing 50,000 entries whose objects are long out of the cache took the lock
    /// for milliseconds. Kept until taken, or until the next batch is forgotten.
    public func takeForgotten() -> ForgottenPushes { memory.takeForgotten() }

    /// Takes back the storage of a generation `takeForgotten` handed out, once its entries are
    /// destroyed (`ForgottenPushes.destroyEntries`), for the next generation.
    public func reuse(_ emptied: consuming ForgottenPushes) { memory.reuse(emptied) }

    /// A token of a phone's app, as the provider would receive it from the app.
    public func token(phone: Int, bundleId: String, kind: TokenKind) -> String? {
        guard phones.indices.contains(phone), let app = phones[phone].app(bundleId) else { return nil }
        return (kind == .voip ? app.voipToken : app.alertToken).description
    }
}

/// A push's entry built before the world's lock is taken: the event loop that received the push
/// allocates its identity and copies the request's strings while the other pushes go on; with the
/// lock held, the world only writes what the token's holder decides (`World.accept`).
public struct ArrivingPush: Sendable {
    var entry: PushEntry
    /// Set once the push entered the world: its identity is then the world's, and a second entry
    /// would share it, bundle ID and all (`World.accept` refuses).
    fileprivate(set) var hasEntered = false

    public init(_ push: AcceptedPush, call: CallInfo, apnsId: MessageId, at now: Double) {
        let identity = PushEntry.Identity(
            apnsId: apnsId, token: push.deviceToken, topic: push.topic, callUUID: call.uuid, caller: call.caller)
        entry = PushEntry(
            identity: identity, sentAt: now, expiration: push.expiration, priority: push.priority, phone: -1,
            kind: nil)
        entry.callHash = call.uuidHash
        entry.hasPushType = push.pushType != nil
        entry.note(now, .accepted)
    }
}

extension [FinishedPush] {
    /// Each push's story, built from the push where it lies: read from another module, each was
    /// copied first (its entry of 336 bytes and a retain: perf, 1% of the mock's CPU).
    public func forEachFate(_ body: (consuming PushFate) -> Void) {
        for index in indices { body(self[index].fate) }
    }
}

/// The latest values of a series, in a ring changed in place: memory and time per value stay bounded
/// however long the series. A token's request times for the throttle (only the latest count + 1
/// matter: more than `count` in the window means the oldest of them is in it), a phone's call ids.
struct LatestValues<Value> {
    private var values: [Value] = []
    private var next = 0

    /// The latest value recorded.
    var newest: Value? { values.isEmpty ? nil : values[(next + values.count - 1) % values.count] }

    /// Records `value`; returns the oldest of the latest `keeping` values once that many were seen.
    @discardableResult
    mutating func record(_ value: Value, keeping size: Int) -> Value? {
        if values.count > size {
            values = Array((values[next...] + values[..<next]).suffix(size))  // the throttle's count went down
            next = 0
        }
        if values.count < size {
            values.append(value)
            return values.count == size ? values[0] : nil
        }
        values[next] = value
        next = (next + 1) % size
        return values[next]
    }
}

extension LatestValues: Sendable where Value: Sendable {}

extension LatestValues where Value: Equatable {
    func contains(_ value: Value) -> Bool { values.contains(value) }
}

/// A registry key: tokens live in per-environment spaces ([RESP], BadDeviceToken).
struct RegistryKey: Hashable {
    var environment: APNsEnvironment
    var token: TokenValue
}

/// What the registry knows of a token when asked.
struct TokenRecord {
    var phone: Int
    var bundleId: String
    var kind: TokenKind
    var retiredAt: Double?
    /// A live token's app index on the phone, and the phone's app layout (`AppList.layout`).
    var app: (index: Int32, layout: UInt32) = (-1, 0)
    /// A live token's app's `tokenEpoch`.
    var tokenEpoch: UInt32 = 0
}
