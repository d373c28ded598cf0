import CNghttp2

/// What the engine reports while it reads a client's bytes.
public protocol HTTP2SessionDelegate: AnyObject {
    /// A request is complete (its END_STREAM arrived).
    func session(_ session: HTTP2Session, didReceive request: HTTP2Request)
    /// A stream was refused with RST_STREAM REFUSED_STREAM, unprocessed: over MAX_CONCURRENT_STREAMS
    /// or after GOAWAY (nghttp2 refuses it), or holding too much.
    func session(_ session: HTTP2Session, refusedStream streamId: Int32, _ why: StreamRefusal)
}

/// A socket-free HTTP/2 server session over nghttp2: bytes in → requests; responses in → bytes out.
///
/// The shape of nghttp2's `examples/libevent-server.c`, with the socket left to the transport
/// (docs/architecture.md: engines never touch sockets). libnghttp2 1.52 on Debian 12: the `ssize_t` APIs.
public final class HTTP2Session {
    private var session: OpaquePointer!
    /// The connection that owns this session; it outlives the session and clears this before it
    /// goes, so no reference counting is needed on every request (a weak load is an atomic operation).
    @exclusivity(unchecked) public unowned(unsafe) var delegate: HTTP2SessionDelegate?
    let limits: HTTP2Limits
    /// Requests whose headers are complete, waiting for DATA, by stream id.
    @exclusivity(unchecked) private var incoming: [Int32: HTTP2Request] = [:]
    /// The latest requests to wait for DATA (at most `recentLimit`), searched in order before
    /// `incoming`: a client sends a request's DATA soon after its HEADERS (nghttp2's client sends
    /// the HEADERS of a burst first, then the DATA), so most DATA finds its stream without a hash.
    @exclusivity(unchecked) private var recent: [HTTP2Request] = []
    private static let recentLimit = 16
    /// Header and body bytes `incoming` holds (bounded by `limits.maximumHeldPerConnection`).
    @exclusivity(unchecked) private var heldBytes = 0
    /// Streams this session refused for holding too much, until their RST_STREAM is sent.
    private var refusedForHolding: Set<Int32> = []
    /// The request whose header block is arriving: HEADERS and CONTINUATION frames of one stream
    /// are contiguous (RFC 9113 §6.10), so header callbacks need no dictionary.
    @exclusivity(unchecked) private var receiving: HTTP2Request?
    @exclusivity(unchecked) private var receivingHeaderBytes = 0
    /// The previous request's header fields, and how many of them the block being received has
    /// repeated so far (nil once it differs). HPACK lets a client repeat a block push after push; a
    /// repeated block shares the previous one's storage instead of being copied field by field.
    @exclusivity(unchecked) private var previousFields: HTTP2Request?
    @exclusivity(unchecked) private var repeatedFields: Int?
    /// While repeating: whether the block holds a copy of the previous one's bytes, some values
    /// written over (a field of the same name and length, as a provider's new `apns-id` or device
    /// token); it still shares the previous block's spans.
    @exclusivity(unchecked) private var patched = false
    /// Response bodies waiting for nghttp2 to ask for them, by stream id.
    @exclusivity(unchecked) private var outgoingBodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    /// Bytes of `outgoingBodies` not yet taken: a client that keeps its flow-control window shut
    /// holds them here, so the connection counts them as output waiting (back-pressure).
    @exclusivity(unchecked) public private(set) var outgoingBodyBytes = 0
    /// Set when nghttp2 reported a fatal error; the transport then closes the connection.
    public private(set) var failure: String?
    /// RST_STREAM frames the client sent. libcurl 7.88 resets every stream it has finished
    /// (STREAM_CLOSED), which nghttp2's rapid-reset protection counts (see `goAwayByLibrary`).
    public fileprivate(set) var resetsReceived = 0
    /// Why nghttp2 itself sent GOAWAY (not through `goAway`), in words; nil when it did not.
    public private(set) var goAwayByLibrary: String?
    private var goAwaySubmitted = false
    /// The highest stream id the client has opened.
    @exclusivity(unchecked) private var highestClientStreamId: Int32 = 0

    public init(limits: HTTP2Limits, initialMaxConcurrentStreams: UInt32) {
        self.limits = limits
        // As many streams as the client may open (`ringside_arena_limit`); a connection idle for a
        // second is trimmed back to 32 KB (`trimSpareMemory`).
        arena.pointee.limit = ringside_arena_limit(Int(initialMaxConcurrentStreams))
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks, onBeginFrame)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // Closed streams are kept only for RFC 7540 priorities, which APNs ignores ([SEND]).
        nghttp2_option_set_no_closed_streams(option, 1)
        // No limit is a bucket that never empties (2^62 tokens, refilled faster than time can overflow).
        let resets = limits.streamResets ?? (1 << 62, 1 << 32)
        nghttp2_option_set_stream_reset_rate_limit(option, resets.burst, resets.perSecond)
        var raw: OpaquePointer?
        #if FUZZING || SANITIZED
            // malloc and free, whose every block AddressSanitizer watches (the arena reuses blocks).
            nghttp2_session_server_new2(&raw, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        #else
            var mem = ringside_arena_mem(arena)
            nghttp2_session_server_new3(&raw, callbacks, Unmanaged.passUnretained(self).toOpaque(), option, &mem)
        #endif
        session = raw
        submitSettings([
            (NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, limits.headerTableSize),
            (NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, initialMaxConcurrentStreams),
            (NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits.initialWindowSize),
            (NGHTTP2_SETTINGS_MAX_FRAME_SIZE, limits.maxFrameSize),
            (NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, limits.maxHeaderListSize),
        ])
    }

    deinit {
        nghttp2_session_del(session)
        ringside_arena_release(arena)
        arena.deallocate()
    }

    /// The session's allocator (`ringside_arena` in CNghttp2's shim): freed blocks are handed out
    /// again without glibc, about 1,400 instructions a request (callgrind). It outlives the session.
    private let arena: UnsafeMutablePointer<ringside_arena> = {
        let arena = UnsafeMutablePointer<ringside_arena>.allocate(capacity: 1)
        arena.initialize(to: ringside_arena())
        return arena
    }()

    /// Gives back the blocks an idle connection keeps beyond the shim's 32 KB: 10,000 idle
    /// connections hold at most 320 MB of them, whatever they once had in flight.
    public func trimSpareMemory() { ringside_arena_trim(arena, Int(RINGSIDE_ARENA_KEPT)) }

    /// The bytes the arena's free lists keep (a test's figure).
    var arenaKept: Int { arena.pointee.kept }

    /// Feeds bytes from the client. Returns false when the connection must close (protocol error).
    @discardableResult
    public func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil, !bytes.isEmpty else { return failure == nil }
        let consumed = nghttp2_session_mem_recv(
            session, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
        if consumed < 0 {
            failure = String(cString: nghttp2_strerror(Int32(consumed)))
            return false
        }
        return true
    }

    /// Appends every frame nghttp2 has ready to `sink`; returns false on a fatal error.
    @discardableResult
    public func drainOutput(_ sink: (UnsafeRawBufferPointer) -> Void) -> Bool {
        while true {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            if length < 0 {
                failure = String(cString: nghttp2_strerror(Int32(length)))
                return false
            }
            if length == 0 { return true }
            sink(UnsafeRawBufferPointer(start: data, count: length))
        }
    }

    /// Whether the session still expects to read or write anything (false after GOAWAY both ways).
    public var isAlive: Bool {
        failure == nil && (nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0)
    }

    /// The highest client stream id this session has processed (for GOAWAY's last-stream-id).
    public var lastProcessedStreamId: Int32 { nghttp2_session_get_last_proc_stream_id(session) }

    /// Queues a response. An error status with a body becomes HEADERS then DATA with END_STREAM;
    /// a body-less response is one HEADERS frame with END_STREAM (docs/apns-facts.md §3.1).
    public func respond(streamId: Int32, _ response: HTTP2Response) {
        // Names and values go into one buffer on the stack; nghttp2 copies them when the response
        // is submitted, so nothing here outlives the call (no heap array per response).
        let status = Self.statusText(response.status)
        var size = ":status".utf8.count + status.utf8.count
        for header in response.headers { size += header.name.utf8.count + header.value.utf8.count }
        size += response.unique.byteCount
        let count = response.headers.count + response.unique.count + 1
        let result: Int32 = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { bytes in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: count) { fields in
                var cursor = bytes.baseAddress!
                var index = 0
                func field(_ name: UnsafeMutablePointer<UInt8>, _ nameCount: Int, _ valueCount: Int, flags: UInt32) {
                    (fields.baseAddress! + index).initialize(
                        to: nghttp2_nv(
                            name: name, value: name + nameCount, namelen: nameCount, valuelen: valueCount,
                            flags: UInt8(flags)))
                    index += 1
                }
                func field(_ name: String, _ value: String) {
                    let start = Self.copy(name, to: &cursor)
                    _ = Self.copy(value, to: &cursor)
                    field(start, name.utf8.count, value.utf8.count, flags: NGHTTP2_NV_FLAG_NONE.rawValue)
                }
                field(":status", status)
                for header in response.headers { field(header.name, header.value) }
                for unique in [response.unique.first, response.unique.second] {
                    guard let unique else { continue }
                    let nameCount = unique.name.utf8CodeUnitCount
                    unique.copy(to: cursor)
                    field(cursor, nameCount, unique.count, flags: NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
                    cursor += nameCount + unique.count
                }
                let base = UnsafePointer(fields.baseAddress!)
                if let body = response.body, !body.isEmpty {
                    outgoingBodies[streamId] = (body, 0)
                    outgoingBodyBytes += body.count
                    var provider = nghttp2_data_provider(
                        source: nghttp2_data_source(ptr: nil), read_callback: readResponseBody)
                    return nghttp2_submit_response(session, streamId, base, count, &provider)
                }
                return nghttp2_submit_response(session, streamId, base, count, nil)
            }
        }
        if result != 0 { dropBody(streamId) }
    }

    /// Copies `text`'s bytes to `cursor` and moves it past them; returns where they start. Through
    /// `withContiguousStorageIfAvailable` (native strings on Linux): `withUTF8` on a copy measured
    /// about 380 instructions a response more (callgrind).
    private static func copy(_ text: String, to cursor: inout UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<
        UInt8
    > {
        let start = cursor
        let count = text.utf8.withContiguousStorageIfAvailable { utf8 in
            if let source = utf8.baseAddress { start.update(from: source, count: utf8.count) }
            return utf8.count
        }
        if let count {
            cursor += count
        } else {
            for byte in text.utf8 {
                cursor.pointee = byte
                cursor += 1
            }
        }
        return start
    }

    /// "200" and the statuses APNs answers with, without formatting a number per response.
    private static func statusText(_ status: Int) -> String {
        switch status {
        case 200: return "200"
        case 400: return "400"
        case 403: return "403"
        case 410: return "410"
        case 429: return "429"
        case 500: return "500"
        case 503: return "503"
        default: return String(status)
        }
    }

    /// Resets one stream (RFC 9113 §6.4).
    public func reset(streamId: Int32, errorCode: UInt32) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamId, errorCode)
    }

    /// Changes MAX_CONCURRENT_STREAMS (APNs raises it after the first valid JWT, docs/apns-facts.md §6.1).
    public func setMaxConcurrentStreams(_ value: UInt32) {
        arena.pointee.limit = ringside_arena_limit(Int(value))
        submitSettings([(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, value)])
    }

    /// Sends GOAWAY with debug data; `lastStreamId` nil means the last stream processed.
    public func goAway(lastStreamId: Int32? = nil, errorCode: UInt32 = 0, debugData: [UInt8] = []) {
        goAwaySubmitted = true
        let last = lastStreamId ?? lastProcessedStreamId
        _ = debugData.withUnsafeBufferPointer { buffer in
            nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, buffer.baseAddress, buffer.count)
        }
    }

    /// nghttp2 sent a GOAWAY the server did not ask for. Debian's libnghttp2 1.52.0-1+deb12u1 carries
    /// the CVE-2023-44487 fix: more RST_STREAMs than `limits.streamResets` end the connection with
    /// INTERNAL_ERROR (nghttp2.h, nghttp2_option_set_stream_reset_rate_limit).
    fileprivate func sentGoAway(errorCode: UInt32, lastStreamId: Int32) {
        guard !goAwaySubmitted, goAwayByLibrary == nil else { return }
        if errorCode == NGHTTP2_INTERNAL_ERROR.rawValue, let limit = limits.streamResets,
            resetsReceived >= limit.burst
        {
            goAwayByLibrary =
                "nghttp2 sent GOAWAY INTERNAL_ERROR (last stream \(lastStreamId)) after \(resetsReceived) RST_STREAM "
                + "frames from the client: its rapid-reset protection (CVE-2023-44487) allows a burst of "
                + "\(limit.burst), then \(limit.perSecond) a second; libcurl 7.88 resets every stream it has finished"
        } else {
            let name = String(cString: nghttp2_http2_strerror(errorCode))
            goAwayByLibrary = "nghttp2 sent GOAWAY \(name) (last stream \(lastStreamId))"
        }
    }

    private func submitSettings(_ entries: [(nghttp2_settings_id, UInt32)]) {
        let settings = entries.map { nghttp2_settings_entry(settings_id: Int32($0.0.rawValue), value: $0.1) }
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), settings, settings.count)
    }

    // MARK: nghttp2 callbacks (non-capturing; `self` comes back through user_data).

    /// Runs `body` on the session behind `user_data` without retaining it: nghttp2 calls back only
    /// from inside `receive`/`drainOutput`, while the session is alive.
    @inline(__always)
    fileprivate static func with<T>(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2Session) -> T) -> T {
        Unmanaged<HTTP2Session>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
    }

    /// RFC 9113 §5.1.1: a client opens streams with ids above every one it used before, and an
    /// unexpected stream id is a connection error PROTOCOL_ERROR. nghttp2 ignores HEADERS on a lower,
    /// no longer open stream (it cannot tell them from a closed stream's late trailers, and APNs
    /// clients send no trailers), so the check is here.
    fileprivate func beginHeadersFrame(streamId: Int32) {
        if streamId > highestClientStreamId {
            highestClientStreamId = streamId
        } else if nghttp2_session_find_stream(session, streamId) == nil, !goAwaySubmitted {
            goAwaySubmitted = true
            goAwayByLibrary =
                "HEADERS on stream \(streamId), not above the client's last stream \(highestClientStreamId): GOAWAY PROTOCOL_ERROR (RFC 9113 §5.1.1)"
            nghttp2_session_terminate_session2(session, highestClientStreamId, NGHTTP2_PROTOCOL_ERROR.rawValue)
        }
    }

    fileprivate func beginHeaders(streamId: Int32) {
        receiving = HTTP2Request(streamId: streamId)
        receivingHeaderBytes = 0
        if previousFields == nil {
            receiving!.fieldBytes.reserveCapacity(512)
            receiving!.fieldSpans.reserveCapacity(16)
        } else {
            repeatedFields = 0
        }
    }

    /// Inlined into nghttp2's callback: it runs for every field of every block.
    @inline(__always) fileprivate func header(
        streamId: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>
    ) {
        guard receiving?.streamId == streamId else { return }
        // RFC 9113 §6.5.2: a field's size is its name and value plus 32 octets.
        receivingHeaderBytes += name.count + value.count + 32
        if receivingHeaderBytes > Int(limits.maxHeaderListSize) {
            stopRepeating()
            receiving!.headerListTooLarge = true
            return
        }
        if let count = repeatedFields {
            if previousFields!.field(count, is: name, value) {
                repeatedFields = count + 1
                return
            }
            if patch(count, name, value) { return }
            stopRepeating()
        }
        receiving!.appendField(name: name, value: value)
    }

    /// Field `index` of a repeating block has the previous block's name and a value of the same
    /// length: one copy of the previous block's bytes, its values written over where they differ,
    /// not a copy of the fields so far and every later field appended one by one. Out of line, to
    /// keep `header` small.
    @inline(never) private func patch(
        _ index: Int, _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard previousFields!.field(index, is: name, withValueOf: value.count) else { return false }
        if !patched {
            receiving!.shareFields(of: previousFields!)
            patched = true
        }
        receiving!.overwrite(valueOf: index, with: value)
        repeatedFields = index + 1
        return true
    }

    /// The block differs from the previous one: its fields so far become its own.
    private func stopRepeating() {
        guard let count = repeatedFields else { return }
        repeatedFields = nil
        if patched {
            patched = false
            receiving!.keepFields(count)
            return
        }
        receiving!.fieldBytes.reserveCapacity(512)
        receiving!.fieldSpans.reserveCapacity(16)
        receiving!.copyFields(of: previousFields!, count: count)
    }

    /// The header block is complete: the request is done (END_STREAM) or waits for its DATA.
    fileprivate func endOfHeaders(streamId: Int32, endStream: Bool) {
        guard receiving?.streamId == streamId else { return }
        if let count = repeatedFields, count == previousFields!.fieldCount {
            repeatedFields = nil
            if !patched { receiving!.shareFields(of: previousFields!) }
            patched = false
        } else {
            stopRepeating()
        }
        let request = receiving!
        receiving = nil
        previousFields = request.withoutBody
        if endStream {
            delegate?.session(self, didReceive: request)
        } else if hold(request.fieldBytes.count, streamId: streamId) {
            if recent.count == Self.recentLimit {
                let oldest = recent.removeFirst()
                incoming[oldest.streamId] = oldest
            }
            recent.append(request)
        }
    }

    fileprivate func dataChunk(streamId: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        let added: Int
        if let index = recentIndex(streamId) {
            let kept = recent[index].body.count
            recent[index].receiveBody(bytes, keeping: limits.maximumKeptBody)
            added = recent[index].body.count - kept
        } else {
            guard !incoming.isEmpty, let kept = incoming[streamId]?.body.count else { return }
            incoming[streamId]!.receiveBody(bytes, keeping: limits.maximumKeptBody)
            added = incoming[streamId]!.body.count - kept
        }
        if added > 0, !hold(added, streamId: streamId) { release(streamId) }
    }

    /// Counts `bytes` more held for a stream; false (and the stream refused) past the connection's limit.
    private func hold(_ bytes: Int, streamId: Int32) -> Bool {
        heldBytes += bytes
        guard heldBytes > limits.maximumHeldPerConnection else { return true }
        heldBytes -= bytes
        refusedForHolding.insert(streamId)
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamId, NGHTTP2_REFUSED_STREAM.rawValue)
        return false
    }

    private func recentIndex(_ streamId: Int32) -> Int? {
        recent.firstIndex { $0.streamId == streamId }
    }

    /// Forgets a request still arriving, and what it held; returns it.
    @discardableResult
    private func release(_ streamId: Int32) -> HTTP2Request? {
        let request: HTTP2Request
        if let index = recentIndex(streamId) {
            request = recent.remove(at: index)
        } else {
            guard !incoming.isEmpty, let waiting = incoming.removeValue(forKey: streamId) else { return nil }
            request = waiting
        }
        heldBytes -= request.fieldBytes.count + request.body.count
        return request
    }

    fileprivate func endOfRequest(streamId: Int32) {
        guard let request = release(streamId) else { return }
        delegate?.session(self, didReceive: request)
    }

    fileprivate func streamClosed(streamId: Int32) {
        if receiving?.streamId == streamId {
            receiving = nil
            repeatedFields = nil
            patched = false
        }
        release(streamId)
        dropBody(streamId)
    }

    private func dropBody(_ streamId: Int32) {
        guard !outgoingBodies.isEmpty, let pending = outgoingBodies.removeValue(forKey: streamId) else { return }
        outgoingBodyBytes -= pending.bytes.count - pending.offset
    }

    /// A REFUSED_STREAM went out: why, for the delegate.
    fileprivate func sentRefusal(streamId: Int32) {
        let why: StreamRefusal =
            refusedForHolding.remove(streamId) != nil
            ? .heldTooMuch(limit: limits.maximumHeldPerConnection) : .overLimitOrAfterGoAway
        delegate?.session(self, refusedStream: streamId, why)
    }

    fileprivate func readBody(
        streamId: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let pending = outgoingBodies[streamId] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(length, pending.bytes.count - pending.offset)
        pending.bytes.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + pending.offset, count: count)
        }
        outgoingBodyBytes -= count
        if pending.offset + count >= pending.bytes.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            outgoingBodies[streamId] = nil
        } else {
            outgoingBodies[streamId] = (pending.bytes, pending.offset + count)
        }
        return count
    }
}

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
        frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
    else { return 0 }
    HTTP2Session.with(userData) { $0.beginHeaders(streamId: frame.pointee.hd.stream_id) }
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    HTTP2Session.with(userData) {
        $0.header(
            streamId: frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
            value: UnsafeBufferPointer(start: value, count: valueLength))
    }
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamId, data, length, userData in
    HTTP2Session.with(userData) { $0.dataChunk(streamId: streamId, UnsafeBufferPointer(start: data, count: length)) }
    return 0
}

private let onFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let type = UInt32(frame.pointee.hd.type)
    if type == NGHTTP2_RST_STREAM.rawValue { HTTP2Session.with(userData) { $0.resetsReceived += 1 } }
    let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    if type == NGHTTP2_HEADERS.rawValue, frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
        HTTP2Session.with(userData) { $0.endOfHeaders(streamId: frame.pointee.hd.stream_id, endStream: endStream) }
    } else if endStream, type == NGHTTP2_DATA.rawValue || type == NGHTTP2_HEADERS.rawValue {
        // DATA with END_STREAM, or trailers.
        HTTP2Session.with(userData) { $0.endOfRequest(streamId: frame.pointee.hd.stream_id) }
    }
    return 0
}

private let onFrameSent: nghttp2_on_frame_send_callback = { _, frame, userData in
    guard let frame else { return 0 }
    switch UInt32(frame.pointee.hd.type) {
    case NGHTTP2_GOAWAY.rawValue:
        HTTP2Session.with(userData) {
            $0.sentGoAway(errorCode: frame.pointee.goaway.error_code, lastStreamId: frame.pointee.goaway.last_stream_id)
        }
    case NGHTTP2_RST_STREAM.rawValue where frame.pointee.rst_stream.error_code == NGHTTP2_REFUSED_STREAM.rawValue:
        HTTP2Session.with(userData) { $0.sentRefusal(streamId: frame.pointee.hd.stream_id) }
    default: break
    }
    return 0
}

private let onBeginFrame: nghttp2_on_begin_frame_callback = { _, header, userData in
    guard let header, header.pointee.type == UInt8(NGHTTP2_HEADERS.rawValue), header.pointee.stream_id & 1 == 1 else {
        return 0
    }
    HTTP2Session.with(userData) { $0.beginHeadersFrame(streamId: header.pointee.stream_id) }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, streamId, _, userData in
    HTTP2Session.with(userData) { $0.streamClosed(streamId: streamId) }
    return 0
}

private let readResponseBody: nghttp2_data_source_read_callback = { _, streamId, buffer, length, flags, _, userData in
    return HTTP2Session.with(userData) { $0.readBody(streamId: streamId, into: buffer!, length: length, flags: flags!) }
}
