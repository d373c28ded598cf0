import APNs
import CLinux
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Which phone holds a token, per environment ([RESP]: sandbox and production are distinct spaces).
///
/// Live tokens sit in one open-addressing table of 8-byte slots: the token's 32-bit check (`check`)
/// and the entry (phone, kind, environment) packed in 32 more. A slot is only a candidate: `holds`
/// checks it against the phone's app, which keeps the whole token. A million phones (two tokens
/// each) cost 32 MB of slots, where a `Dictionary` of fingerprints cost 67 MB and a SipHash per push.
/// Retired tokens (reinstalled, rotated, deleted apps) keep an exact record for their 410.
struct TokenRegistry {
    struct Entry {
        var phone: Int32
        var kind: TokenKind
        var environment: APNsEnvironment
    }

    struct Retired {
        var phone: Int
        var bundleId: String
        var kind: TokenKind
        var retiredAt: Double
    }

    /// `check` (the fingerprint's top 32 bits) and the packed entry; `packed == empty` is a free
    /// slot, `packed == removed` a tombstone that probes pass over.
    fileprivate struct Slot {
        var check: UInt32
        var packed: UInt32
    }

    fileprivate static let empty = UInt32.max
    fileprivate static let removed = UInt32.max - 1
    /// Phones a slot can name: the packed entry keeps two bits for kind and environment.
    static let packablePhones = Int32((UInt32.max - 2) >> 2)

    /// Not copy-on-write (`SlotTable`): a registry is one world's, changed in place, never copied.
    private var slots = SlotTable(count: 16)
    /// Live slots, and live plus tombstones (which also lengthen probes).
    private var liveCount = 0
    private var usedCount = 0
    /// Entries whose phone does not fit a slot (over a billion phones: only in theory).
    private var unpackable: [RegistryKey: Entry] = [:]
    private var retired: [RegistryKey: Retired] = [:]

    /// Prepares for `count` live tokens without growing on the way.
    mutating func reserve(_ count: Int) {
        var capacity = slots.count
        while capacity / 2 < count { capacity *= 2 }
        if capacity > slots.count { rebuild(capacity: capacity) }
    }

    /// A token's check: 32 bits of its first sixteen bytes and environment, mixed, so that made-up
    /// tokens that share a prefix still spread over the table (APNs tokens are random anyway).
    fileprivate static func check(_ token: TokenValue, _ environment: APNsEnvironment) -> UInt32 {
        var value = token.words.0 ^ token.words.1 &* 0xBF58_476D_1CE4_E5B9
        value ^= environment == .production ? 0x9E37_79B9_7F4A_7C15 : 0
        value = (value ^ (value >> 31)) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: (value ^ (value >> 29)) >> 32)
    }

    /// The first slot of a check's probe sequence (from the check alone, so a rebuild needs no token).
    @inline(__always) private func home(_ check: UInt32) -> Int { Self.home(check, mask: slots.count - 1) }

    @inline(__always) fileprivate static func home(_ check: UInt32, mask: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(check) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// Where the table lies, for `TokenTableHint`.
    var hint: TokenTableHint {
        TokenTableHint(base: UInt(bitPattern: slots.base), mask: slots.count - 1)
    }

    fileprivate static let slotStride = MemoryLayout<Slot>.stride

    /// The first empty slot or tombstone on a check's probe sequence (the table is never full).
    private func freeSlot(_ check: UInt32) -> Int {
        var index = home(check)
        while slots[index].packed != Self.empty, slots[index].packed != Self.removed {
            index = (index + 1) & (slots.count - 1)
        }
        return index
    }

    private static func pack(_ entry: Entry) -> UInt32 {
        UInt32(entry.phone) << 2 | (entry.kind == .voip ? 0 : 1) | (entry.environment == .production ? 2 : 0)
    }

    private static func unpack(_ packed: UInt32) -> Entry {
        Entry(
            phone: Int32(packed >> 2), kind: packed & 1 == 0 ? .voip : .alert,
            environment: packed & 2 == 0 ? .sandbox : .production)
    }

    mutating func register(_ token: TokenValue, environment: APNsEnvironment, phone: Int, kind: TokenKind) {
        let entry = Entry(phone: Int32(clamping: phone), kind: kind, environment: environment)
        guard phone < Self.packablePhones else {
            unpackable[RegistryKey(environment: environment, token: token)] = entry
            return
        }
        if (usedCount + 1) * 2 > slots.count {
            rebuild(capacity: liveCount * 4 >= slots.count ? slots.count * 2 : slots.count)
        }
        let check = Self.check(token, environment)
        let index = freeSlot(check)
        if slots[index].packed == Self.empty { usedCount += 1 }
        slots[index] = Slot(check: check, packed: Self.pack(entry))
        liveCount += 1
    }

    /// Places every live slot again in a table of `capacity` slots, dropping the tombstones.
    private mutating func rebuild(capacity: Int) {
        let old = slots
        slots = SlotTable(count: capacity)
        usedCount = 0
        for index in 0..<old.count where old[index].packed != Self.empty && old[index].packed != Self.removed {
            slots[freeSlot(old[index].check)] = old[index]
            usedCount += 1
        }
    }

    /// The index of the live slot for a token that `holds` confirms, if any.
    private func find(_ token: TokenValue, environment: APNsEnvironment, holds: (Entry) -> Bool) -> Int? {
        let check = Self.check(token, environment)
        var index = home(check)
        while slots[index].packed != Self.empty {
            let slot = slots[index]
            if slot.packed != Self.removed, slot.check == check {
                let entry = Self.unpack(slot.packed)
                if entry.environment == environment, holds(entry) { return index }
            }
            index = (index + 1) & (slots.count - 1)
        }
        return nil
    }

    mutating func retire(
        _ token: TokenValue, environment: APNsEnvironment, phone: Int, bundleId: String, kind: TokenKind,
        at now: Double,
        holds: (Entry) -> Bool
    ) {
        let exact = RegistryKey(environment: environment, token: token)
        if unpackable.removeValue(forKey: exact) == nil, let index = find(token, environment: environment, holds: holds)
        {
            slots[index].packed = Self.removed
            liveCount -= 1
        }
        retired[exact] = Retired(phone: phone, bundleId: bundleId, kind: kind, retiredAt: now)
    }

    /// The live entry for a token; `holds` checks that the entry's phone really has this token.
    func live(_ token: TokenValue, environment: APNsEnvironment, holds: (Entry) -> Bool) -> Entry? {
        if let index = find(token, environment: environment, holds: holds) { return Self.unpack(slots[index].packed) }
        return unpackable.isEmpty ? nil : unpackable[RegistryKey(environment: environment, token: token)]
    }

    func retired(_ token: TokenValue, environment: APNsEnvironment) -> Retired? {
        retired.isEmpty ? nil : retired[RegistryKey(environment: environment, token: token)]
    }
}

/// Where the token table lay when last looked at under the world's lock: the mock asks for a
/// token's first slot before it takes the lock (`address(of:environment:)`), so that the lookup under
/// the lock does not wait for memory (the slot's cache miss was a fifth of a push's visit). Only a
/// hint: an address from a table since rebuilt is asked for and never read.
public struct TokenTableHint: Equatable, Sendable {
    public var base: UInt
    public var mask: Int

    public init(base: UInt, mask: Int) {
        self.base = base
        self.mask = mask
    }

    /// The token's first slot, if the table was known.
    public func address(of token: TokenValue, environment: APNsEnvironment) -> UnsafeRawPointer? {
        address(of: TokenRegistry.check(token, environment))
    }

    /// The first slot of a check's probe sequence, if the table was known.
    private func address(of check: UInt32) -> UnsafeRawPointer? {
        guard base != 0 else { return nil }
        let home = TokenRegistry.home(check, mask: mask)
        return UnsafeRawPointer(bitPattern: base &+ UInt(truncatingIfNeeded: home &* TokenRegistry.slotStride))
    }

    /// The phone the token's first slot names, read without the world's lock: a guess, to ask for
    /// the phone's memory before the lock is taken, never to act on. The table may be changing, or
    /// rebuilt since: its memory stays mapped (`SlotTable`), so the read is safe, and what it reads
    /// may be anything. Nil when the slot holds another token's check or none.
    public func phone(of token: TokenValue, environment: APNsEnvironment) -> Int? {
        let check = TokenRegistry.check(token, environment)
        guard let slot = address(of: check) else { return nil }
        let seen = SlotTable.read(slot)
        guard seen.check == check, seen.packed < TokenRegistry.removed else { return nil }
        return Int(seen.packed >> 2)
    }
}

/// The token table's slots, in memory that stays mapped as long as the process runs: the mock reads
/// a slot without the world's lock (`TokenTableHint.phone`), and a table rebuilt or dropped meanwhile
/// must not be unmapped under that read. A table let go gives its pages back to the system
/// (`MADV_DONTNEED`: they read as zeros after) and its address range to a pool, for the next table
/// of that size; a late read then sees zeros or another table's slots, a wrong guess and no harm.
private final class SlotTable {
    let base: UnsafeMutablePointer<TokenRegistry.Slot>
    let count: Int

    init(count: Int) {
        self.count = count
        let bytes = Self.bytes(count)
        let spare = Self.pool.withLock { $0[bytes]?.popLast() }
        base = UnsafeMutablePointer(bitPattern: spare ?? 0) ?? Self.map(bytes)
        // Advised before the first write: a large table's pages fault in as huge pages.
        adviseHugePages(base, bytes: bytes)
        for index in 0..<count { self[index] = TokenRegistry.Slot(check: 0, packed: TokenRegistry.empty) }
    }

    deinit {
        let bytes = Self.bytes(count)
        _ = madvise(base, bytes, MADV_DONTNEED)
        let address = UInt(bitPattern: base)
        Self.pool.withLock { $0[bytes, default: []].append(address) }
    }

    /// Written as one atomic store (a plain store on x86-64): a read without the lock may be
    /// happening (`read`), and so the race is defined.
    subscript(index: Int) -> TokenRegistry.Slot {
        get { base[index] }
        set {
            ringside_store_relaxed_u64(base + index, UInt64(newValue.packed) << 32 | UInt64(newValue.check))
        }
    }

    /// The slot at `slot`, in one relaxed atomic load, as the subscript writes it (`check` in the
    /// low half): another thread may be writing it.
    static func read(_ slot: UnsafeRawPointer) -> TokenRegistry.Slot {
        let word = ringside_load_relaxed_u64(slot)
        return TokenRegistry.Slot(
            check: UInt32(truncatingIfNeeded: word), packed: UInt32(truncatingIfNeeded: word >> 32))
    }

    /// Address ranges of tables let go, by size in bytes (whole pages).
    private static let pool = Mutex<[Int: [UInt]]>([:])

    private static func bytes(_ count: Int) -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return (count * MemoryLayout<TokenRegistry.Slot>.stride + page - 1) / page * page
    }

    private static func map(_ bytes: Int) -> UnsafeMutablePointer<TokenRegistry.Slot> {
        let address = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else { fatalError("cannot map \(bytes) bytes for the token table") }
        return address.assumingMemoryBound(to: TokenRegistry.Slot.self)
    }
}
