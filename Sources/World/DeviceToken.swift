import APNs

/// A device token as the world keeps it: the bytes, inline for up to 32 of them, so a million phones
/// cost no per-token allocation. Longer tokens keep their tail in `extra`.
public struct TokenValue: Hashable, Sendable, CustomStringConvertible {
    var words: (UInt64, UInt64, UInt64, UInt64)
    var extra: [UInt8]?
    var count: UInt16

    public init(bytes: [UInt8]) {
        func word(_ at: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in at..<min(at + 8, bytes.count) { value |= UInt64(bytes[index]) << UInt64((index - at) * 8) }
            return value
        }
        words = (word(0), word(8), word(16), word(24))
        extra = bytes.count > 32 ? Array(bytes[32...]) : nil
        count = UInt16(bytes.count)
    }

    /// Parses hexadecimal (either case); nil for anything else.
    public init?(hex: String) {
        guard DeviceTokenSyntax.isWellFormed(hex) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for byte in hex.utf8 {
            let nibble = byte <= 57 ? byte - 48 : (byte | 0x20) - 87
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        self.init(bytes: bytes)
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        let words = [self.words.0, self.words.1, self.words.2, self.words.3]
        for index in 0..<min(Int(count), 32) {
            out.append(UInt8(truncatingIfNeeded: words[index / 8] >> UInt64((index % 8) * 8)))
        }
        if let extra { out += extra }
        return out
    }

    /// Lower-case hex, as providers send it.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func == (a: TokenValue, b: TokenValue) -> Bool {
        a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
            && a.words.3 == b.words.3 && a.extra == b.extra
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
        hasher.combine(count)
        hasher.combine(extra)
    }
}

/// Which registration a token came from ([PK-UPD] versus [REG]): they differ for one app.
public enum TokenKind: String, Sendable, Codable {
    /// `PKPushRegistry` with `.voIP`: valid only with the `<bundle>.voip` topic.
    case voip
    /// `registerForRemoteNotifications`: valid with the bare bundle id.
    case alert
}
