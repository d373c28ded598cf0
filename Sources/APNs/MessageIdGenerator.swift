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

    public mutating func next() -> String {
        var high = random.next()
        var low = random.next()
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & ~(0xC << 60)) | (0x8 << 60)  // RFC 4122 variant
        return Self.digitPairs.withUnsafeBufferPointer { pairs in
            String(unsafeUninitializedCapacity: 36) { out in
                let text = UnsafeMutableRawPointer(out.baseAddress!)
                // 8-4-4-4-12: the high word's bytes at 0, 2, 4, 6, 9, 11, 14, 16, the low word's at 19,
                // 21, 24, … 34, dashes between.
                func put(_ word: UInt64, byte: Int, at offset: Int) {
                    let value = Int(truncatingIfNeeded: word >> UInt64(56 - 8 * byte)) & 0xFF
                    text.storeBytes(of: pairs[value], toByteOffset: offset, as: UInt16.self)
                }
                for (byte, offset) in [0, 2, 4, 6, 9, 11, 14, 16].enumerated() { put(high, byte: byte, at: offset) }
                for (byte, offset) in [19, 21, 24, 26, 28, 30, 32, 34].enumerated() { put(low, byte: byte, at: offset) }
                for dash in [8, 13, 18, 23] {
                    text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: dash, as: UInt8.self)
                }
                return 36
            }
        }
    }
}
