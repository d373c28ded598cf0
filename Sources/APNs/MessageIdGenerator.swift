/// Makes `apns-id`s: UUID version 4 text from a fast generator seeded once per connection
/// (`SystemRandomNumberGenerator` is a syscall per call on Linux; a seed also makes runs replayable).
public struct MessageIdGenerator: Sendable {
    private var random: SeededGenerator

    public init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        random = SeededGenerator(seed: seed ?? system.next())
    }

    private static let digits: StaticString = "0123456789abcdef"

    public mutating func next() -> String {
        var high = random.next()
        var low = random.next()
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & ~(0xC << 60)) | (0x8 << 60)  // RFC 4122 variant
        return String(unsafeUninitializedCapacity: 36) { out in
            let digits = UnsafeRawPointer(Self.digits.utf8Start).assumingMemoryBound(to: UInt8.self)
            // 8-4-4-4-12: dashes before digits 8, 12, 16 and 20 (two words, no array per id).
            func write(_ word: UInt64, from first: Int, at start: Int) -> Int {
                var position = start
                for nibble in 0..<16 {
                    let digit = first + nibble
                    if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits[Int((word >> UInt64(60 - nibble * 4)) & 0xF)]
                    position += 1
                }
                return position
            }
            return write(low, from: 16, at: write(high, from: 0, at: 0))
        }
    }
}
