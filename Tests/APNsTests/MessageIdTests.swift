import APNs
import Testing

/// `apns-id`s as values: made ones are written as text only when asked, sent ones are answered as sent.
@Suite struct MessageIdTests {
    @Test("A made id is a version 4 UUID in lower case, the same text each time it is written")
    func madeIds() {
        var ids = MessageIdGenerator(seed: 7)
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = ids.nextId()
            let text = id.description
            #expect(UUIDSyntax.isCanonical(text))
            #expect(text == text.lowercased())
            let bytes = Array(text.utf8)
            #expect(bytes[14] == UInt8(ascii: "4"), "version 4: \(text)")
            #expect("89ab".utf8.contains(bytes[19]), "RFC 4122 variant: \(text)")
            #expect(id.description == text)
            #expect(Self.written(id) == text)
            seen.insert(text)
        }
        #expect(seen.count == 1000)
    }

    @Test("The same seed makes the same ids (a replayable run)")
    func seeded() {
        var a = MessageIdGenerator(seed: 42)
        var b = MessageIdGenerator(seed: 42)
        for _ in 0..<10 { #expect(a.next() == b.nextId().description) }
    }

    @Test("A UUID is 8-4-4-4-12 hexadecimal digits of either case: each byte in each place is checked")
    func uuidSyntax() {
        let good = "123e4567-e89b-12d3-a456-4266554400a0"
        #expect(UUIDSyntax.isCanonical(good) && UUIDSyntax.isCanonical(good.uppercased()))
        #expect(UUIDSyntax.isCanonical("ABCDEFab-cdef-0123-4567-89abcdefABCD"))
        let bytes = Array(good.utf8)
        let dashes: Set<Int> = [8, 13, 18, 23]
        // Every place, given every byte that does not belong there: refused.
        for index in bytes.indices {
            for byte in UInt8.min...UInt8.max {
                let belongs =
                    dashes.contains(index)
                    ? byte == UInt8(ascii: "-")
                    : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
                var changed = bytes
                changed[index] = byte
                let verdict = changed.withUnsafeBufferPointer { UUIDSyntax.isCanonical($0) }
                if verdict != belongs { Issue.record("byte \(byte) at \(index): \(verdict), expected \(belongs)") }
            }
        }
        // Lengths around 36, and 36 bytes that are not 36 characters.
        #expect(!UUIDSyntax.isCanonical(String(good.dropLast())) && !UUIDSyntax.isCanonical(good + "0"))
        #expect(!UUIDSyntax.isCanonical("123e4567-e89b-12d3-a456-4266554400\u{e9}"))
        #expect(!UUIDSyntax.isCanonical(""))
    }

    @Test("A provider's id is answered as sent, upper case too; anything else is no id")
    func sentIds() {
        for text in ["123e4567-e89b-12d3-a456-4266554400a0", "123E4567-E89B-12D3-A456-4266554400A0"] {
            let id = MessageId(sent: text)
            #expect(id?.description == text)
            #expect(id.map(Self.written) == text)
        }
        for text in [
            "", "123e4567e89b12d3a4564266554400a0", "123e4567-e89b-12d3-a456-4266554400a",
            "g23e4567-e89b-12d3-a456-4266554400a0", "123e4567-e89b-12d3-a456-4266554400a0 ",
        ] {
            #expect(MessageId(sent: text) == nil, "\(text)")
        }
    }

    @Test("An id named by text is written as 36 bytes, cut or padded, never past them")
    func textIds() {
        #expect(Self.written(MessageId(text: "id-1")) == "id-1" + String(repeating: "0", count: 32))
        #expect(Self.written(MessageId(text: String(repeating: "x", count: 50))) == String(repeating: "x", count: 36))
        #expect(Self.written("") == String(repeating: "0", count: 36))
        #expect(MessageId(text: "id-1").description == "id-1")
    }

    /// What `write(to:)` puts in a buffer with a guard byte after the id.
    static func written(_ id: MessageId) -> String {
        var buffer = [UInt8](repeating: 0xEE, count: MessageId.textCount + 1)
        buffer.withUnsafeMutableBytes { id.write(to: $0.baseAddress!) }
        #expect(buffer.last == 0xEE, "nothing written past the id")
        return String(decoding: buffer.dropLast(), as: UTF8.self)
    }
}
