import CNghttp2

/// An HTTP/2 client that speaks to bytes, not a socket: nghttp2's client session with
/// `mem_send`/`mem_recv`. `MemoryMock` carries its bytes to the server's `Connection` and back.
public final class MemoryClient {
    /// One stream's answer as the client saw it.
    public struct Answer {
        public var status = 0
        public var headers: [String: String] = [:]
        public var body: [UInt8] = []
        /// RST_STREAM's error code, or 0; set when the stream closed.
        public var errorCode: UInt32 = 0
        public var closed = false
        public var reason: String? {
            let text = String(decoding: body, as: UTF8.self)
            guard let range = text.range(of: #""reason":""#) else { return nil }
            return String(text[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    public private(set) var session: OpaquePointer?
    public private(set) var answers: [Int32: Answer] = [:]
    /// The GOAWAY the server sent, if any: its last stream id and debug data.
    public private(set) var goAway: (lastStreamId: Int32, debugData: String)?
    /// SETTINGS_MAX_CONCURRENT_STREAMS as the server last announced it.
    public var maxConcurrentStreams: UInt32? { streamLimits.last }
    /// Every SETTINGS_MAX_CONCURRENT_STREAMS the server announced, in order.
    public private(set) var streamLimits: [UInt32] = []
    /// The server's SETTINGS as last announced, by name (`MAX_CONCURRENT_STREAMS`, …).
    public private(set) var settings: [String: UInt32] = [:]
    /// What ended, in the order the client saw it: "end N" for stream N, "goaway", "ping ack".
    public private(set) var happenings: [String] = []
    private var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]

    public init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, 1)
    }

    deinit { nghttp2_session_del(session) }

    private static let settingNames: [Int32: String] = [
        1: "HEADER_TABLE_SIZE", 2: "ENABLE_PUSH", 3: "MAX_CONCURRENT_STREAMS", 4: "INITIAL_WINDOW_SIZE",
        5: "MAX_FRAME_SIZE", 6: "MAX_HEADER_LIST_SIZE",
    ]

    /// Queues a PING; its ACK shows in `happenings`.
    public func ping() {
        let data = Array("ringside".utf8)
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), data)
    }

    /// Queues a request; returns its stream id.
    @discardableResult
    public func request(_ fields: [(String, String)], body: [UInt8]) -> Int32 {
        var bytes: [UInt8] = []
        var spans: [(Range<Int>, Range<Int>)] = []
        for (name, value) in fields {
            let start = bytes.count
            bytes.append(contentsOf: name.utf8)
            let middle = bytes.count
            bytes.append(contentsOf: value.utf8)
            spans.append((start..<middle, middle..<bytes.count))
        }
        let stream: Int32 = bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let nva = spans.map {
                nghttp2_nv(
                    name: base + $0.0.lowerBound, value: base + $0.1.lowerBound, namelen: $0.0.count,
                    valuelen: $0.1.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readRequestBody)
            return nghttp2_submit_request(session, nil, nva, nva.count, &provider, nil)
        }
        precondition(stream > 0, "nghttp2 refused the request: \(stream)")
        bodies[stream] = (body, 0)
        answers[stream] = Answer()
        return stream
    }

    /// What the client has to send.
    public func output() -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { break }
            bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        return bytes
    }

    /// Bytes from the server.
    public func receive(_ bytes: [UInt8]) {
        let read = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        precondition(read == bytes.count, "the client could not read the server's bytes: \(read)")
    }

    fileprivate func header(_ stream: Int32, _ name: String, _ value: String) {
        if name == ":status" { answers[stream, default: Answer()].status = Int(value) ?? 0 }
        answers[stream, default: Answer()].headers[name] = value
    }

    fileprivate func data(_ stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        answers[stream, default: Answer()].body.append(contentsOf: bytes)
    }

    fileprivate func closed(_ stream: Int32, _ errorCode: UInt32) {
        answers[stream, default: Answer()].closed = true
        answers[stream, default: Answer()].errorCode = errorCode
        happenings.append("end \(stream)")
    }

    fileprivate func frame(_ frame: UnsafePointer<nghttp2_frame>) {
        switch UInt32(frame.pointee.hd.type) {
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.pointee.goaway
            happenings.append("goaway")
            self.goAway = (
                goAway.last_stream_id,
                String(
                    decoding: UnsafeBufferPointer(start: goAway.opaque_data, count: goAway.opaque_data_len),
                    as: UTF8.self)
            )
        case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            let received = frame.pointee.settings
            for index in 0..<received.niv {
                let (id, value) = (received.iv[index].settings_id, received.iv[index].value)
                if id == Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue) { streamLimits.append(value) }
                settings[Self.settingNames[id] ?? "\(id)"] = value
            }
        case NGHTTP2_PING.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            happenings.append("ping ack")
        default: break
        }
    }

    fileprivate func readBody(_ stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> (Int, Bool) {
        guard var pending = bodies[stream] else { return (0, true) }
        let count = min(length, pending.bytes.count - pending.offset)
        pending.bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + pending.offset, count: count) }
        pending.offset += count
        bodies[stream] = pending.offset == pending.bytes.count ? nil : pending
        return (count, pending.offset == pending.bytes.count)
    }

    fileprivate static func with<T>(_ userData: UnsafeMutableRawPointer?, _ body: (MemoryClient) -> T) -> T {
        body(Unmanaged<MemoryClient>.fromOpaque(userData!).takeUnretainedValue())
    }
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    MemoryClient.with(userData) {
        $0.header(
            frame.pointee.hd.stream_id,
            String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
            String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
    }
    return 0
}

private let onData: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, userData in
    MemoryClient.with(userData) { $0.data(stream, UnsafeBufferPointer(start: data, count: length)) }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, stream, errorCode, userData in
    MemoryClient.with(userData) { $0.closed(stream, errorCode) }
    return 0
}

private let onFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
    if let frame { MemoryClient.with(userData) { $0.frame(frame) } }
    return 0
}

private let readRequestBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, userData in
    let (count, done) = MemoryClient.with(userData) { $0.readBody(stream, into: buffer!, length: length) }
    if done { flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    return count
}
