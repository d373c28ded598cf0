import APNs

/// A device token as the world keeps it: the bytes, inline for up to 32 of them, so a million phones
/// cost no per-token allocation. Longer tokens keep their tail in `extra`.
public struct TokenValue: Hashable, Sendable, CustomStringConvertible {
    private(set) var words: (UInt64, UInt64, UInt64, UInt64)
    var extra: [UInt8]?
    var count: UInt16

    public init(bytes: [UInt8]) {
        func word(_ at: Int) -> UInt64 {
            var value: UInt64 = 0
            // A token shorter than `at` leaves the word empty (`tokenBytes` goes down to 1).
            for index in at..<max(at, min(at + 8, bytes.count)) {
                value |= UInt64(bytes[index]) << UInt64((index - at) * 8)
            }
            return value
        }
        words = (word(0), word(8), word(16), word(24))
        extra = bytes.count > 32 ? Array(bytes[32...]) : nil
        count = UInt16(bytes.count)
    }

    /// Parses hexadecimal (either case); nil for anything else. Tokens of up to 32 bytes are read
    /// straight into the words, without an intermediate array (every push parses one).
    public init?(hex: String) {
        var text = hex
        let parsed: TokenValue?? = text.withUTF8 { digits -> TokenValue?? in
            guard digits.count % 2 == 0, !digits.isEmpty, digits.count <= DeviceTokenSyntax.maximumLength else {
                return .some(nil)
            }
            guard digits.count <= 64 else { return nil }  // long tokens: the general path below
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            for byteIndex in 0..<(digits.count / 2) {
                guard let high = Self.nibble(digits[2 * byteIndex]), let low = Self.nibble(digits[2 * byteIndex + 1])
                else {
                    return .some(nil)
                }
                let value = UInt64(high << 4 | low) << UInt64((byteIndex % 8) * 8)
                switch byteIndex / 8 {
                case 0: words.0 |= value
                case 1: words.1 |= value
                case 2: words.2 |= value
                default: words.3 |= value
                }
            }
            return .some(TokenValue(words: words, extra: nil, count: UInt16(digits.count / 2)))
        }
        if let parsed {
            guard let parsed else { return nil }
            self = parsed
            return
        }
        guard DeviceTokenSyntax.isWellFormed(hex) else { return nil }
        var bytes: [UInt8] = []
        var high: UInt8?
        for digit in hex.utf8 {
            let nibble = Self.nibble(digit)!
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        self.init(bytes: bytes)
    }

    private init(words: (UInt64, UInt64, UInt64, UInt64), extra: [UInt8]?, count: UInt16) {
        self.words = words
        self.extra = extra
        self.count = count
    }

    /// A hexadecimal digit's value (either case), or nil (also the payload's `\uXXXX`, `CallInfo`).
    @inline(__always) static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: return digit - 48
        case 97...102: return digit - 87
        case 65...70: return digit - 55
        default: return nil
        }
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

    /// `==` with a token read where it lies, word by word (see `VirtualApp.holds`).
    @inline(__always) static func matches(_ stored: UnsafePointer<TokenValue>, _ token: TokenValue) -> Bool {
        guard stored.pointee.count == token.count, stored.pointee.words.0 == token.words.0,
            stored.pointee.words.1 == token.words.1, stored.pointee.words.2 == token.words.2,
            stored.pointee.words.3 == token.words.3
        else { return false }
        return token.extra == nil ? stored.pointee.extra == nil : stored.pointee.extra == token.extra
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
public enum TokenKind: String, Sendable, Codable, CaseIterable {
    /// `PKPushRegistry` with `.voIP`: valid only with the `<bundle>.voip` topic.
    case voip
    /// `registerForRemoteNotifications`: valid with the bare bundle id.
    case alert
}
