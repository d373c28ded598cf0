import CLinux

/// What the world remembers of the pushes it accepted, by number, and how many are still pending:
/// memory tuning the phone's rules need not read (World.swift asks `peek`, `change`, `append` and
/// `finished`; PhoneRules.swift only reads and changes entries). Lives inside the world's lock.
struct PushMemory {
    /// The latest pushes, in two generations: push number `n ≥ recentStart` is
    /// `recent[n - recentStart]`, and `n ≥ forgotten` before that is `older[n - forgotten]`. Once
    /// `recent` holds half of `keptPushes`, `older` is forgotten whole and `recent` takes its place
    /// (memory bounded under a soak), except the pushes still pending, which move to `pendingAside`
    /// until they finish. Whole generations: forgetting the oldest half of one array shifted the
    /// rest down, a memmove of every kept entry with the lock held (a tenth of the world's samples
    /// in `bench/world-profile.sh`).
    var recent: [PushEntry] = []
    var older: [PushEntry] = []
    /// The number of `recent`'s first push: `forgotten + older.count`.
    var recentStart = 0
    /// Pushes older than `forgotten` still waiting for their outcome (stored for an offline phone,
    /// say): at most one stored per app and phone, plus those in flight.
    var pendingAside: [Int: PushEntry] = [:]
    /// The last generation forgotten, until `takeForgotten`.
    var forgottenEntries = ForgottenPushes()
    /// Storage for the next generation: a forgotten one's, emptied and handed back (`reuse`). A
    /// fresh array faulted its pages in one by one as pushes were appended, with the lock held.
    var spare = ForgottenPushes()
    /// The numbers set aside, in order (they leave `older` oldest first); finished ones are dropped
    /// from it lazily, so that a page of `GET /outcomes` is a slice, never a sort.
    var asideOrder: [Int] = []
    /// Pushes accepted whose outcome is not final yet, wherever they are kept.
    var pendingCount = 0
    /// The pending pushes in `older` and in `recent`: a generation with none is forgotten without
    /// reading its entries (50,000 of them, long out of the cache, read with the lock held).
    var pendingInOlder = 0
    var pendingInRecent = 0
    /// How many of the oldest pushes were forgotten or set aside: the number of `older`'s first.
    var forgotten = 0
    /// How many pushes the world remembers at most, pending ones aside.
    var keptPushes = 100_000
    /// Pushes whose outcome became final since the last `takeFinished()`.
    var finishedSinceLastTake: [Int] = []

    /// The number the next push accepted will have.
    var nextNumber: Int { recentStart + recent.count }

    /// How many pushes are remembered.
    var count: Int { pendingAside.count + older.count + recent.count }

    /// A remembered push, by number (callers hold a number the world gave out and has not forgotten).
    /// Reading one field goes through `peek`: a getter or `_read` here copied the whole entry (six
    /// retains and releases, a third of a push's cost in profiles), its two branches yielding from
    /// different stores. The getter is for taking a whole copy.
    subscript(push number: Int) -> PushEntry {
        @inline(__always) get {
            if number >= recentStart { return recent[number - recentStart] }
            return number >= forgotten ? older[number - forgotten] : pendingAside[number]!
        }
        @inline(__always) _modify {
            if number >= recentStart {
                yield &recent[number - recentStart]
            } else if number >= forgotten {
                yield &older[number - forgotten]
            } else {
                yield &pendingAside[number]!
            }
        }
    }

    /// Several changes to a remembered push in one access. `body` changes the entry only: the world's
    /// own arrays are not to be touched while it runs (`recent` is being changed in place). The branch
    /// is `subscript(push:)`'s: going through its `_modify` measured 320 instructions a push more.
    @inline(__always) mutating func change(_ number: Int, _ body: (inout PushEntry) -> Void) {
        if number >= recentStart {
            body(&recent[number - recentStart])
        } else if number >= forgotten {
            body(&older[number - forgotten])
        } else {
            body(&pendingAside[number]!)
        }
    }

    /// Reads of a remembered push, borrowed (see `subscript(push:)`).
    @inline(__always) func peek<R>(_ number: Int, _ read: (borrowing PushEntry) -> R) -> R {
        if number >= recentStart { return read(recent[number - recentStart]) }
        return number >= forgotten ? read(older[number - forgotten]) : read(pendingAside[number]!)
    }

    /// Asks for the memory the next push's entry will be written to (`World.prepareForPush`).
    mutating func prepareForPush() { World.prefetchForWrite(after: &recent) }

    /// A push accepted: the next number, pending.
    mutating func append(_ entry: PushEntry) {
        recent.append(entry)
        pendingCount += 1
        pendingInRecent += 1
    }

    /// Push `number`'s outcome is final: no longer pending, and told at the next take.
    mutating func finished(_ number: Int) {
        pendingCount -= 1
        if number >= recentStart {
            pendingInRecent -= 1
        } else if number >= forgotten {
            pendingInOlder -= 1
        }
        finishedSinceLastTake.append(number)
    }

    /// A slice of the remembered pushes, oldest first: those set aside, then the two generations.
    /// Not a pure read: finished pushes are dropped from the order first.
    mutating func remembered(_ range: Range<Int>) -> [(number: Int, entry: PushEntry)] {
        let range = range.clamped(to: 0..<count)
        if asideOrder.count > pendingAside.count {
            let aside = pendingAside
            asideOrder.removeAll { aside[$0] == nil }
        }
        let fromAside = asideOrder[range.clamped(to: 0..<asideOrder.count)].map { ($0, pendingAside[$0]!) }
        let fromRecent = range.clamped(to: asideOrder.count..<count)
        return fromAside
            + ((fromRecent.lowerBound - asideOrder.count)..<(fromRecent.upperBound - asideOrder.count)).map {
                (forgotten + $0, self[push: forgotten + $0])
            }
    }

    /// The pushes finished since the last take, each with its phone's name, into `finished`; then
    /// the oldest finished pushes beyond `keptPushes` are forgotten.
    mutating func takeFinished(into finished: inout [FinishedPush], phoneName: (PushEntry) -> String?) {
        for (offset, number) in finishedSinceLastTake.enumerated() where isRemembered(number) {
            // Copying an entry retains its identity, on a line another core wrote: asked for a few
            // entries ahead, its miss overlaps the copies before it.
            let ahead = offset + Self.prefetchDistance
            if ahead < finishedSinceLastTake.count { prefetchIdentity(of: finishedSinceLastTake[ahead]) }
            let entry = self[push: number]
            finished.append(FinishedPush(number: number, entry: entry, phoneName: phoneName(entry)))
        }
        for number in finishedSinceLastTake where number < forgotten { pendingAside[number] = nil }
        finishedSinceLastTake.removeAll(keepingCapacity: true)
        forgetOld()
    }

    /// How many finished pushes ahead `takeFinishedPushes` asks for the identity's cache line.
    private static let prefetchDistance = 6

    /// A hint to load push `number`'s identity (for its retain), without touching it.
    @inline(__always) func prefetchIdentity(of number: Int) {
        guard number >= forgotten, number - recentStart < recent.count else { return }
        ringside_prefetch_for_write(peek(number, { Unmanaged.passUnretained($0.identity).toOpaque() }))
    }

    /// Whether push `number` is remembered (without copying it, as `fate` does).
    func isRemembered(_ number: Int) -> Bool {
        number >= forgotten ? number - recentStart < recent.count : pendingAside[number] != nil
    }

    /// Once `recent` holds half of `keptPushes`, or the two generations more than `keptPushes`
    /// (it was lowered), `older` is forgotten and `recent` takes its place: the world then
    /// remembers at least half of `keptPushes` and, between two takes, at most `keptPushes` and
    /// the pushes since the last take. The pending ones in `older` are set aside, not forgotten.
    mutating func forgetOld() {
        guard recent.count >= max(1, keptPushes / 2) || older.count + recent.count > keptPushes else { return }
        // Each entry's ending is read in place: a copy retained every forgotten entry's identity,
        // long out of the cache.
        if pendingInOlder > 0 {
            for offset in older.indices where older[offset].isPending {
                pendingAside[forgotten + offset] = older[offset]
                asideOrder.append(forgotten + offset)
            }
        }
        forgotten = recentStart
        // Entries not taken (a world without the mock) are destroyed here, their storage reused.
        var next = forgottenEntries.count > 0 ? forgottenEntries.takeBuffer() : spare.takeBuffer()
        // Room for as many as this generation and the pushes of a take or two more: growing it
        // copied every entry to fresh pages, with the lock held.
        next.reserveCapacity(recent.count + recent.count / 4)
        forgottenEntries = ForgottenPushes(older)
        older = recent
        recent = next
        recentStart = forgotten + older.count
        (pendingInOlder, pendingInRecent) = (pendingInRecent, 0)
    }

    /// The pushes forgotten last, for the caller to destroy once it has let go of the world's lock
    /// (`SharedWorld`): freeing 50,000 entries whose objects are long out of the cache took the lock
    /// for milliseconds. Kept until taken, or until the next batch is forgotten.
    mutating func takeForgotten() -> ForgottenPushes {
        defer { forgottenEntries = ForgottenPushes() }
        return forgottenEntries
    }

    /// Takes back the storage of a generation `takeForgotten` handed out, once its entries are
    /// destroyed (`ForgottenPushes.destroyEntries`), for the next generation.
    mutating func reuse(_ emptied: consuming ForgottenPushes) {
        if emptied.count == 0, emptied.capacity > spare.capacity { spare = emptied }
    }
}

/// A generation of pushes the world forgot, destroyed wherever the last copy of this value goes:
/// their strings and long chains are the oldest objects the world holds and long out of the cache
/// (a miss for each), so the mock lets them go after it lets go of the world's lock.
public struct ForgottenPushes: Sendable {
    private var entries: [PushEntry] = []

    init() {}

    init(_ entries: [PushEntry]) { self.entries = entries }

    public var count: Int { entries.count }
    var capacity: Int { entries.capacity }

    /// Destroys the entries where it is called (after the mock lets go of the world's lock), and
    /// keeps their storage for `World.reuse`.
    public mutating func destroyEntries() { entries.removeAll(keepingCapacity: true) }

    /// The array's storage for the next generation, when nobody took these entries: emptied in
    /// place (a world used without the mock, whose entries are destroyed where they are).
    mutating func takeBuffer() -> [PushEntry] {
        entries.removeAll(keepingCapacity: true)
        defer { entries = [] }
        return entries
    }
}

/// A push whose outcome became final, as the world hands it out: `fate` tells its story.
public struct FinishedPush: Sendable {
    public let number: Int
    let entry: PushEntry
    let phoneName: String?

    public var fate: PushFate { entry.fate(number: number, phoneName: phoneName) }
}
