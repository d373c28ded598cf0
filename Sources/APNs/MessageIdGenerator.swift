/// Makes `apns-id`s: UUID version 4 text from a fast generator seeded once per connection
/// (`SystemRandomNumberGenerator` is a syscall per call on Linux; a seed also makes runs replayable).
public struct MessageIdGenerator: Sendable {
    private var random: SeededGenerator

    public init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        random = SeededGenerator(seed: seed ?? system.next())
    }

    public mutating func next() -> String {
        var high = random.next()
        var low = random.next()
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & ~(0xC << 60)) | (0x8 << 60)  // RFC 4122 variant
        return String(unsafeUninitializedCapacity: 36) { out in
            let digits: StaticString = "0123456789abcdef"
            var position = 0
            for (half, word) in [(0, high), (16, low)] {
                for nibble in 0..<16 {
                    let digit = half + nibble
                    if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits.utf8Start[Int((word >> UInt64(60 - nibble * 4)) & 0xF)]
                    position += 1
                }
            }
            return position
        }
    }
}
