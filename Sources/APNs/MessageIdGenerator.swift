/// Makes `apns-id`s: UUID version 4 text from a fast generator seeded once per connection
/// (`SystemRandomNumberGenerator` is a syscall per call on Linux; a seed also makes runs replayable).
public struct MessageIdGenerator: Sendable {
    private var random: SeededGenerator

    public init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        random = SeededGenerator(seed: seed ?? system.next())
    }

    /// Each byte's two lower-case hexadecimal digits, as they lie in memory: one load and one
    /// store per byte (the digit-by-digit loop cost about 600 instructions an id).
    private static let digitPairs: [UInt16] = (0..<256).map { byte in
        let digits = Array("0123456789abcdef".utf8)
        return UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0xF]) << 8
    }

    /// A new version 4 UUID, as text.
    public mutating func next() -> String { nextId().description }

    /// A new version 4 UUID, kept as its 16 bytes until its text is asked for.
    public mutating func nextId() -> MessageId {
        let (high, low) = nextBits()
        return MessageId(high: high, low: low)
    }

    /// A new version 4 UUID's 128 bits (a load's call ids, `LoadRun.callId`).
    public mutating func nextBits() -> (high: UInt64, low: UInt64) {
        let high = random.next()
        let low = random.next()
        return (
            (high & ~0xF000) | 0x4000,  // version 4
            (low & ~(0xC << 60)) | (0x8 << 60)  // RFC 4122 variant
        )
    }

    /// Writes an id's 36 characters at `text` (8-4-4-4-12: the high word's bytes at 0, 2, 4, 6, 9,
    /// 11, 14, 16, the low word's at 19, 21, 24, … 34, dashes between).
    public static func write(high: UInt64, low: UInt64, to text: UnsafeMutableRawPointer) {
        digitPairs.withUnsafeBufferPointer { pairs in
            func put(_ word: UInt64, byte: Int, at offset: Int) {
                let value = Int(truncatingIfNeeded: word >> UInt64(56 - 8 * byte)) & 0xFF
                text.storeBytes(of: pairs[value], toByteOffset: offset, as: UInt16.self)
            }
            for (byte, offset) in [0, 2, 4, 6, 9, 11, 14, 16].enumerated() { put(high, byte: byte, at: offset) }
            for (byte, offset) in [19, 21, 24, 26, 28, 30, 32, 34].enumerated() { put(low, byte: byte, at: offset) }
            for dash in [8, 13, 18, 23] { text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: dash, as: UInt8.self) }
        }
    }
}

/// An `apns-id`: one the mock made (16 bytes, written as text only when asked: a push's answer
/// and record need no string on the heap), or the provider's own, which APNs answers with as sent
/// ([RESP]: "If you omit this header, APNs creates a UUID for you and returns it in its response").
public struct MessageId: Sendable, CustomStringConvertible {
    private enum Storage: Sendable {
        case made(high: UInt64, low: UInt64)
        case sent(String)
        /// A test's or a benchmark's id: any text, never checked.
        case named(String)
    }
    private let storage: Storage

    /// Every id's text is 36 bytes: a canonical UUID.
    public static let textCount = 36

    init(high: UInt64, low: UInt64) { storage = .made(high: high, low: low) }

    /// The provider's `apns-id`; nil unless it is a canonical UUID (`UUIDSyntax`).
    public init?(sent text: String) {
        guard UUIDSyntax.isCanonical(text) else { return nil }
        storage = .sent(text)
    }

    /// The provider's `apns-id`, already found canonical (`PushRequest.messageId`).
    init(checked text: String) { storage = .sent(text) }

    /// An id as text, whatever it is (a test's `"id-1"`): an answer writes its first `textCount`
    /// bytes, padded with `0`.
    public init(text: String) { storage = .named(text) }

    /// Whether the id's text is a canonical UUID (made, or sent and checked): 36 plain bytes a line
    /// can carry unescaped. A named id may be anything (an adversary's 36 control bytes).
    public var isCanonical: Bool {
        if case .named = storage { return false }
        return true
    }

    /// Writes the id's `textCount` bytes at `text`.
    public func write(to text: UnsafeMutableRawPointer) {
        switch storage {
        case .made(let high, let low): MessageIdGenerator.write(high: high, low: low, to: text)
        case .sent(let sent), .named(let sent):
            var sent = sent
            sent.withUTF8 { utf8 in
                let count = min(utf8.count, Self.textCount)
                if count > 0 { text.copyMemory(from: utf8.baseAddress!, byteCount: count) }
                if count < Self.textCount {
                    (text + count).initializeMemory(
                        as: UInt8.self, repeating: UInt8(ascii: "0"), count: Self.textCount - count)
                }
            }
        }
    }

    /// Appends the id's text (its `description`) to `out`, without making a string.
    public func append(to out: inout [UInt8]) {
        switch storage {
        case .made(let high, let low):
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: Self.textCount))
            out.withUnsafeMutableBytes { MessageIdGenerator.write(high: high, low: low, to: $0.baseAddress! + start) }
        case .sent(let text), .named(let text): out.append(contentsOf: text.utf8)
        }
    }

    public var description: String {
        switch storage {
        case .sent(let text), .named(let text):
            return text
        case .made:
            return String(unsafeUninitializedCapacity: Self.textCount) { out in
                write(to: UnsafeMutableRawPointer(out.baseAddress!))
                return Self.textCount
            }
        }
    }
}

/// Tests and benchmarks name ids as text: `apnsId: "id-1"`.
extension MessageId: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) { self.init(text: value) }
    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(text: String(stringInterpolation: stringInterpolation))
    }
}
