import APNs
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a team's app reads the call in its payload (`call-id-at: data.call.id` in a provider
/// file): object keys from the top, for the call id and the caller. Nil: the top-level keys
/// `CallInfo` knows.
public struct CallPaths: Sendable, Codable, Equatable {
    public var callId: [String]?
    public var caller: [String]?

    public init(callId: [String]?, caller: [String]?) {
        self.callId = callId
        self.caller = caller
    }

    /// A path as written: `data.call.id`.
    public static func written(_ path: [String]) -> String { path.joined(separator: ".") }
}

/// The call a VoIP payload announces: Apple's example carries `callUUID` and `handle` ([PK-VOIP]).
///
/// A small scanner of the top-level JSON object's string fields: every push is read, and a full
/// JSON parser per push would cost more than the rest of the world's bookkeeping.
/// Public so that the mock reads it before it locks the world (`World.accept(_:environment:call:…)`).
public struct CallInfo: Sendable {
    public private(set) var uuid: String?
    public private(set) var caller: String?
    /// `uuid`'s hash, taken here, before the world's lock: the report of the call compares hashes
    /// (`RecentCalls`), and hashing there read 36 bytes the ticker's core had never seen.
    public private(set) var uuidHash: Int?

    /// The keys as bytes: a payload's keys are compared where they lie (a generic comparison with
    /// a set of `String`s cost the world about 3,000 instructions a push).
    static let uuidKeys: [[UInt8]] = ["callUUID", "uuid", "callId", "call_id", "callID"].map { Array($0.utf8) }
    static let callerKeys: [[UInt8]] = ["handle", "caller", "callerName", "from", "caller_id"].map { Array($0.utf8) }

    public init(body: [UInt8]) {
        read(body)
        uuidHash = uuid.map(Self.hashOfCallId)
    }

    /// The call as a team's app reads it, at its own place in the payload (`CallPaths`); the
    /// top-level keys above when `paths` is nil.
    public init(body: [UInt8], paths: CallPaths?) {
        guard let paths else {
            self.init(body: body)
            return
        }
        self.init(body: [])
        let object = try? JSONSerialization.jsonObject(with: Data(body))
        uuid = paths.callId.flatMap { Self.string(in: object, at: $0) }
        caller = paths.caller.flatMap { Self.string(in: object, at: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        uuidHash = uuid.map(Self.hashOfCallId)
    }

    /// The string at `path` (object keys) in parsed JSON, if there is one.
    static func string(in object: Any?, at path: [String]) -> String? {
        var node = object
        for key in path { node = (node as? [String: Any])?[key] }
        return node as? String
    }

    /// A call id's hash regardless of case: CallKit reads a UUID in either case as the same call.
    public static func hashOfCallId(_ id: String) -> Int { lowercased(id).hashValue }

    /// A call id in lower case: itself when it has no upper-case letter (a load's call ids are
    /// lower case, and `lowercased()` made a new string of each, three times a call).
    public static func lowercased(_ id: String) -> String {
        // Over the string's own bytes where it has them (a load's ids): the generic walk of its
        // UTF-8 view was a hundredth of a load's work (perf).
        let upper = { (byte: UInt8) in byte &- UInt8(ascii: "A") < 26 }
        let hasUpper =
            id.utf8.withContiguousStorageIfAvailable { $0.contains(where: upper) } ?? id.utf8.contains(where: upper)
        return hasUpper ? id.lowercased() : id
    }

    /// Whether `id` is a UUID an app can hand to CallKit (8-4-4-4-12 hex digits, either case).
    public static func isCallUUID(_ id: String) -> Bool { UUIDSyntax.isCanonical(id) }

    private mutating func read(_ body: [UInt8]) {
        var scanner = Scanner(bytes: body)
        guard scanner.skipSpaces(), scanner.take(UInt8(ascii: "{")) else { return }
        while scanner.skipSpaces(), let key = scanner.string() {
            guard scanner.skipSpaces(), scanner.take(UInt8(ascii: ":")), scanner.skipSpaces() else { return }
            if scanner.peek == UInt8(ascii: "\"") {
                guard let value = scanner.string() else { return }
                // A key given twice: the last wins, as Foundation's JSONSerialization (the app's
                // parser) reads it (RFC 8259 §4: "report the last name/value pair only").
                if scanner.isOne(of: Self.uuidKeys, key) { uuid = scanner.text(value) }
                if scanner.isOne(of: Self.callerKeys, key), !value.range.isEmpty {
                    caller = scanner.text(value)  // "" names no one
                }
            } else if !scanner.skipValue() {
                return
            }
            _ = scanner.skipSpaces()
            if !scanner.take(UInt8(ascii: ",")) { return }
        }
    }

    struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpaces() -> Bool {
            while let byte = peek, byte == 32 || byte == 9 || byte == 10 || byte == 13 { index += 1 }
            return index < bytes.count
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        /// Where a JSON string's bytes are, between its quotes: read as text only when wanted (keys
        /// are compared as bytes; a push's payload has a few, and a `String` each showed in profiles).
        struct Quoted {
            var range: Range<Int>
            var hasEscapes: Bool
        }

        mutating func string() -> Quoted? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            var hasEscapes = false
            while let byte = peek {
                index += 1
                if byte == UInt8(ascii: "\"") { return Quoted(range: start..<(index - 1), hasEscapes: hasEscapes) }
                if byte == UInt8(ascii: "\\") {
                    hasEscapes = true
                    guard peek != nil else { return nil }
                    index += 1
                }
            }
            return nil
        }

        /// The string's text, its escapes decoded as JSON's (RFC 8259 §7): `\uXXXX` too, with
        /// surrogate pairs (Python's `json.dumps` writes every non-ASCII character so by default, and a
        /// caller named "Zoë" must match a block list that says so). A lone or broken escape keeps
        /// its bytes, and a lone surrogate becomes U+FFFD.
        func text(_ quoted: Quoted) -> String {
            guard quoted.hasEscapes else { return String(decoding: bytes[quoted.range], as: UTF8.self) }
            var out: [UInt8] = []
            var position = quoted.range.lowerBound
            let end = quoted.range.upperBound
            /// Four hex digits at `at`, if they are there.
            func hex4(_ at: Int) -> UInt32? {
                guard at + 4 <= end else { return nil }
                var value: UInt32 = 0
                for byte in bytes[at..<(at + 4)] {
                    guard let digit = TokenValue.nibble(byte) else { return nil }
                    value = value << 4 | UInt32(digit)
                }
                return value
            }
            while position < end {
                let byte = bytes[position]
                position += 1
                guard byte == UInt8(ascii: "\\"), position < end else {
                    out.append(byte)
                    continue
                }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4(position) else {
                        out.append(contentsOf: [UInt8(ascii: "\\"), escape])
                        continue
                    }
                    position += 4
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate: its low half follows as another escape.
                        if position + 6 <= end, bytes[position] == UInt8(ascii: "\\"),
                            bytes[position + 1] == UInt8(ascii: "u"), let low = hex4(position + 2),
                            (0xDC00..<0xE000).contains(low)
                        {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            position += 6
                        } else {
                            scalar = 0xFFFD
                        }
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        scalar = 0xFFFD
                    }
                    UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { out.append($0) }
                default: out.append(escape)  // \" \\ \/ (and anything else, as it is)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }

        func isOne(of keys: [[UInt8]], _ quoted: Quoted) -> Bool {
            if quoted.hasEscapes { return keys.contains(Array(text(quoted).utf8)) }
            let count = quoted.range.count
            return bytes.withUnsafeBufferPointer { all in
                keys.contains { key in
                    key.count == count
                        && key.withUnsafeBufferPointer {
                            memcmp(all.baseAddress! + quoted.range.lowerBound, $0.baseAddress!, count) == 0
                        }
                }
            }
        }

        /// Skips a number, literal, object or array (strings inside are honoured).
        mutating func skipValue() -> Bool {
            var depth = 0
            while let byte = peek {
                switch byte {
                case UInt8(ascii: "\""):
                    guard string() != nil else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return true }
                    depth -= 1
                case UInt8(ascii: ","):
                    if depth == 0 { return true }
                default: break
                }
                index += 1
            }
            return depth == 0
        }
    }
}

/// A call id as a table's key, regardless of case (CallKit reads a UUID in either case as the same
/// call): a UUID's 128 bits where it is one, else its text in lower case. A load keys tables by
/// call id three times a call (`PlacedCalls`, the load's tally); keyed by its string, each was a
/// heap string's hash over 36 bytes with a retain and a release, and its removal hashed its
/// neighbours' strings again (perf: a twentieth of `bench/load.sh`'s work).
public struct CallKey: Hashable, Sendable, CustomStringConvertible {
    private let high: UInt64
    private let low: UInt64
    /// A call id that is not a UUID, in lower case (nil for a UUID).
    private let text: String?

    public init(_ id: String) {
        if let bits = id.utf8.withContiguousStorageIfAvailable(UUIDSyntax.bits)
            ?? Array(id.utf8).withUnsafeBufferPointer(UUIDSyntax.bits)
        {
            (high, low, text) = (bits.high, bits.low, nil)
        } else {
            (high, low, text) = (0, 0, CallInfo.lowercased(id))
        }
    }

    /// A UUID's key from its 128 bits (the first byte's in the high bits of `high`).
    public init(high: UInt64, low: UInt64) {
        (self.high, self.low, text) = (high, low, nil)
    }

    /// The call id in lower case (a UUID spelled 8-4-4-4-12, as an apns-id is).
    public var description: String {
        if let text { return text }
        return String(unsafeUninitializedCapacity: MessageId.textCount) { spelled in
            MessageIdGenerator.write(high: high, low: low, to: UnsafeMutableRawPointer(spelled.baseAddress!))
            return MessageId.textCount
        }
    }
}
