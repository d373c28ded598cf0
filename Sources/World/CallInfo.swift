/// The call a VoIP payload announces: Apple's example carries `callUUID` and `handle` ([PK-VOIP]).
///
/// A small scanner of the top-level JSON object's string fields: every push is read, and a full
/// JSON parser per push would cost more than the rest of the world's bookkeeping.
struct CallInfo {
    var uuid: String?
    var caller: String?

    static let uuidKeys: Set<String> = ["callUUID", "uuid", "callId", "call_id", "callID"]
    static let callerKeys: Set<String> = ["handle", "caller", "callerName", "from", "caller_id"]

    init(body: [UInt8]) {
        var scanner = Scanner(bytes: body)
        guard scanner.skipSpaces(), scanner.take(UInt8(ascii: "{")) else { return }
        while scanner.skipSpaces(), let key = scanner.string() {
            guard scanner.skipSpaces(), scanner.take(UInt8(ascii: ":")), scanner.skipSpaces() else { return }
            if scanner.peek == UInt8(ascii: "\"") {
                guard let value = scanner.string() else { return }
                if uuid == nil, Self.uuidKeys.contains(key) { uuid = value }
                if caller == nil, Self.callerKeys.contains(key), !value.isEmpty { caller = value }  // "" names no one
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

        /// A JSON string; escapes are kept simple (\" \\ \/ \n \t, \uXXXX as is).
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var out: [UInt8] = []
            while let byte = peek {
                index += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                if byte == UInt8(ascii: "\\"), let escaped = peek {
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "t"): out.append(9)
                    default: out.append(escaped)
                    }
                } else {
                    out.append(byte)
                }
            }
            return nil
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
