import APNs
import CNghttp2
import COpenSSL
import Foundation

/// Why a push got no HTTP answer: what the connection policy (`ConnectionPolicy`) decides on.
public enum TransportFailure: Sendable, Equatable {
    /// APNs said GOAWAY before processing the stream; the reason is GOAWAY's debug data (nil: none).
    case goAway(Reason?)
    /// The TLS handshake (or, under TLS 1.3, the first read after it) failed: a certificate APNs
    /// refused, or a server certificate that does not lead to the configured CA.
    case handshakeRefused(String)
    /// The stream was refused (RST_STREAM REFUSED_STREAM) before APNs processed it: over the
    /// connection's stream limit, which is 1 until a valid JWT ([SEND]).
    case streamRefused
    /// The connection ended or went silent under the stream; APNs may or may not have processed it.
    case connectionBroke(String)
    /// Not sent: the provider stopped sending on this configuration after a permanent failure.
    case stopped(String)
}

/// One HTTP/2 connection to APNs on nghttp2's client session, over TLS through memory BIOs (or h2c
/// with prior knowledge): the built-in provider's transport. Unlike libcurl it says why a connection
/// ended — GOAWAY's reason, a refused handshake, a refused stream — which the connection policy needs.
///
/// A connection is used by one thread at a time, and none of its fields is passed inout while
/// another access to it is open: the fields read per push skip the dynamic exclusivity checks
/// (`@exclusivity(unchecked)`), a tenth of the client's instructions in callgrind.
final class HTTP2ClientConnection {
    struct Options {
        /// Verify APNs's certificate against the configured CA and host (the `skips-server-verification`
        /// profile does not).
        var verifiesServer = true
        /// The stream limit assumed before APNs's SETTINGS arrive: APNs allows one stream until the
        /// first valid JWT, so a careful client starts at 1 (nghttp2 assumes 100, and a client that
        /// sends 100 at once loses 99 to REFUSED_STREAM).
        var initialStreamLimit: UInt32? = 1
        /// Submit a push only when a stream is free (the bulk sender), not the whole batch at once.
        /// The built-in profiles hand every push of a round to nghttp2, which queues what the stream
        /// limit holds back, as providers' HTTP/2 libraries do: streams sent while APNs's limit was
        /// high are refused when it falls (scenarios/connections/20-stream-limit-after-rejection.ring).
        var submitsWhenStreamsFree = false
    }

    private let configuration: ClientConfiguration
    private let options: Options
    /// APNs's address, from the configuration's URL (nil host: a URL that cannot be used).
    private let scheme: String
    private let host: String?
    private let port: Int
    /// `:authority`, made once.
    private let authority: String
    /// The bytes' way to APNs: a TCP socket, or what the configuration dials instead.
    @exclusivity(unchecked) private var wire: (any Wire)?
    @exclusivity(unchecked) private var context: OpaquePointer?
    @exclusivity(unchecked) private var tls: OpaquePointer?
    /// The TLS session's memory BIOs (owned by `tls`): bytes from the wire, bytes for it.
    @exclusivity(unchecked) private var incoming: OpaquePointer?
    @exclusivity(unchecked) private var outgoing: OpaquePointer?
    @exclusivity(unchecked) private var session: OpaquePointer?
    /// Why the connection cannot carry pushes any more.
    @exclusivity(unchecked) private(set) var broken: TransportFailure?
    /// APNs's GOAWAY, when one came: streams above `lastStreamId` were not processed.
    @exclusivity(unchecked) private(set) var goAway: (lastStreamId: Int32, reason: Reason?)?
    /// A TLS alert read after the handshake.
    @exclusivity(unchecked) private var alert: String?
    /// Whether any stream got an HTTP answer on this connection (an alert before that is a refusal
    /// of the handshake, not a broken connection).
    @exclusivity(unchecked) private var answered = false
    /// The exchange's streams by position: nghttp2 numbers a client's streams 1, 3, 5 … as they are
    /// submitted, so stream `firstStream + 2k` is `slots[k]`. An array, not dictionaries by stream:
    /// their hashing was a tenth of the bulk sender's time in callgrind.
    @exclusivity(unchecked) fileprivate var slots: [Slot] = []
    @exclusivity(unchecked) private var firstStream: Int32 = 0
    /// Slots still waiting for their answer.
    @exclusivity(unchecked) private var waiting = 0
    /// The request being submitted: names and values side by side, where each is, and nghttp2's
    /// view of them; kept from push to push.
    @exclusivity(unchecked) private var headerBytes: [UInt8] = []
    @exclusivity(unchecked) private var headerSpans: [(Range<Int>, Range<Int>)] = []
    /// The fields of the request before, as given: a request's bytes are written again only from
    /// the first field that differs (in a batch, most are the same from push to push).
    @exclusivity(unchecked) private var previousFields: [(name: String, value: String)] = []
    @exclusivity(unchecked) private var nameValues: [nghttp2_nv] = []

    /// One stream of the exchange: its answer so far, the request body left to send and the
    /// response body read.
    fileprivate struct Slot {
        enum State {
            case waiting
            case finished
            /// A stream id this exchange did not submit.
            case unused
        }
        var state = State.waiting
        var answer = PushAnswer(status: 0)
        var body: [UInt8] = []
        /// The request's own `apns-id`: an answer that repeats it is given this string, not a new one.
        var sentId: String?
        var offset = 0
        var response: [UInt8] = []
    }

    /// The slot of a stream still waiting for its answer.
    fileprivate func waitingSlot(_ stream: Int32) -> Int? {
        let distance = Int(stream) - Int(firstStream)
        guard firstStream > 0, distance >= 0, distance & 1 == 0, distance / 2 < slots.count,
            slots[distance / 2].state == .waiting
        else { return nil }
        return distance / 2
    }

    init(configuration: ClientConfiguration, options: Options = Options()) {
        self.configuration = configuration
        self.options = options
        let url = URL(string: configuration.url)
        scheme = url?.scheme ?? "https"
        host = url?.host
        port = url?.port ?? 443
        authority = "\(host ?? "localhost"):\(port)"
        open()
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        ringside_arena_release(arena)
        arena.deallocate()
        if let tls { SSL_free(tls) }
        if let context { SSL_CTX_free(context) }
    }

    /// The session's allocator, as the mock's (`HTTP2Session.arena`, CNghttp2's shim): a stream's
    /// blocks are handed out again for the next without glibc. It outlives the session.
    private let arena: UnsafeMutablePointer<ringside_arena> = {
        let arena = UnsafeMutablePointer<ringside_arena>.allocate(capacity: 1)
        arena.initialize(to: ringside_arena())
        return arena
    }()

    /// The bytes the arena's free lists keep, and the small blocks it took from malloc because
    /// they were empty (a test's figures).
    var arenaFigures: (kept: Int, misses: Int) { (arena.pointee.kept, arena.pointee.misses) }

    /// Whether new streams can be opened: no failure, no GOAWAY.
    var isUsable: Bool { broken == nil && goAway == nil && session != nil }

    /// Sends the pushes and reads until each is answered or fails; answers come back in order.
    func exchange(_ pushes: [OutgoingPush], authorization: String?) -> [PushAnswer] {
        start(pushes, authorization: authorization)
        run()
        return answers()
    }

    /// Each connection's pushes, sent and answered together on this thread, as h2load drives its
    /// connections: a thread a connection, on a machine the mock shares, competed with the mock
    /// for the cores (`bash bench/provider.sh`, two connections). Answers come back by connection,
    /// each in order. A connection whose wire cannot be waited on with others (`Wire.descriptor`)
    /// is read in turn, as `exchange` reads it.
    static func exchange(together batches: [(HTTP2ClientConnection, [OutgoingPush], authorization: String?)])
        -> [[PushAnswer]]
    {
        for (connection, pushes, authorization) in batches { connection.start(pushes, authorization: authorization) }
        let connections = batches.map(\.0)
        // Each connection's own deadline: the time since bytes last came on it, bounded by its
        // timeout, whatever the others read meanwhile (an adversary's lane answered 2 s late under
        // a 0.3 s timeout while the other lane kept reading).
        var lastRead = [Double](repeating: ProcessInfo.processInfo.systemUptime, count: connections.count)
        // What a handshake or an earlier exchange read and left in TLS is read first: `poll`
        // says nothing of it.
        for connection in connections where connection.isWaiting && connection.hasBufferedInput {
            if connection.wire?.descriptor != nil { _ = connection.readAvailable() }
        }
        var polled: [pollfd] = []
        while true {
            for connection in connections where connection.isWaiting {
                connection.submitMore()
                connection.writeQueued()
            }
            let active = connections.indices.filter { connections[$0].isWaiting }
            if active.isEmpty { break }
            // A wire with nothing to wait on is read in turn, waiting, as `exchange` reads it.
            let unwatched = active.filter { connections[$0].wire?.descriptor == nil }
            if !unwatched.isEmpty {
                for index in unwatched {
                    connections[index].readOnce()
                    lastRead[index] = ProcessInfo.processInfo.systemUptime
                }
                continue
            }
            let before = ProcessInfo.processInfo.systemUptime
            let wait = active.map { lastRead[$0] + connections[$0].configuration.timeout - before }.min()!
            polled = active.map { pollfd(fd: connections[$0].wire!.descriptor!, events: Int16(POLLIN), revents: 0) }
            let count = poll(&polled, nfds_t(polled.count), Int32(clamping: Int((max(0, wait) * 1000).rounded(.up))))
            if count < 0, errno == EINTR { continue }
            for (index, entry) in zip(active, polled) where count < 0 || entry.revents != 0 {
                if connections[index].readAvailable() { lastRead[index] = ProcessInfo.processInfo.systemUptime }
            }
            // Late only once its own socket was looked at, after the others were read.
            let now = ProcessInfo.processInfo.systemUptime
            for index in active
            where connections[index].isWaiting && now - lastRead[index] >= connections[index].configuration.timeout {
                connections[index].fail(.connectionBroke("no answer in time"))
            }
        }
        return connections.map { $0.answers() }
    }

    /// The exchange under way: its pushes, the authorization they carry, and the stream of each
    /// submitted so far (nil: not sent).
    @exclusivity(unchecked) private var pushes: [OutgoingPush] = []
    @exclusivity(unchecked) private var authorization: String?
    @exclusivity(unchecked) private var streams: [Int32?] = []

    /// Starts an exchange: the arena sized for the batch, the first pushes submitted.
    private func start(_ pushes: [OutgoingPush], authorization: String?) {
        // What the last batch left is trimmed to what this one can take.
        ringside_arena_trim(arena, ringside_arena_limit(min(pushes.count, inFlightBound)))
        slots.removeAll(keepingCapacity: true)
        firstStream = 0
        waiting = 0
        cannotWrite = false
        self.pushes = pushes
        self.authorization = authorization
        streams.removeAll(keepingCapacity: true)
        streams.reserveCapacity(pushes.count)
        submitMore()
    }

    /// Submits pushes, each with its frames; with `submitsWhenStreamsFree`, only while fewer than
    /// the streams APNs lets be open wait for their answer. A whole batch submitted before the
    /// first write left the mock idle while the bulk sender built every request of it, batch after
    /// batch (a third of the time, `bash bench/provider.sh`), and a push waiting in nghttp2's queue
    /// for a stream goes out with the others' HEADERS before any DATA (`ClientFrameOrderTests`).
    private func submitMore() {
        guard let session, streams.count < pushes.count else { return }
        let bound = inFlightBound
        // What the pushes in flight take (`ringside_arena_limit`; 1.1 KB a push in
        // `ClientArenaTests`). A fixed 2 MB, with a whole 10,000-push batch submitted at once, sent
        // four fifths of its blocks to malloc and back, 1,400 instructions a push.
        arena.pointee.limit = ringside_arena_limit(min(pushes.count, bound))
        while streams.count < pushes.count, waiting < bound, isUsable {
            streams.append(submit(pushes[streams.count], authorization: authorization, on: session))
            // Its frames at once: nghttp2 sends every waiting HEADERS before any DATA, and APNs
            // then holds a thousand requests without their bodies (the mock kept them in a table
            // by stream, not in its short list of the latest: 1,100 instructions a request more).
            gatherFrames()
        }
    }

    /// The most pushes `submitMore` lets wait for their answer: with `submitsWhenStreamsFree`, the
    /// streams APNs lets be open now (one until its SETTINGS, then 1,000); else no bound.
    private var inFlightBound: Int {
        guard options.submitsWhenStreamsFree else { return .max }
        guard let session else { return 1 }
        let open = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
        return Int(max(1, min(open, 1 << 20)))
    }

    /// Whether the exchange still waits for answers, or has pushes to submit, on a connection that
    /// works.
    private var isWaiting: Bool {
        broken == nil && session != nil && (waiting > 0 || (streams.count < pushes.count && isUsable))
    }

    /// Whether bytes read from the wire wait in TLS, to be decrypted without reading again.
    private var hasBufferedInput: Bool {
        guard let tls else { return false }
        return SSL_pending(tls) > 0 || ringside_BIO_pending(incoming) > 0
    }

    /// The exchange's answers, in the order its pushes were given; the pushes are let go.
    private func answers() -> [PushAnswer] {
        var answers: [PushAnswer] = []
        answers.reserveCapacity(pushes.count)
        for position in pushes.indices {
            guard position < streams.count, let stream = streams[position],
                case let index = Int(stream - firstStream) / 2, slots[index].state == .finished
            else {
                var answer = PushAnswer(status: 0, transportError: "not sent: \(Self.describe(notUsable))")
                answer.failure = notUsable
                answers.append(answer)
                continue
            }
            // Moved out, not copied: a copy retained each field, and the slot's release freed none.
            var answer = PushAnswer(status: 0)
            swap(&answer, &slots[index].answer)
            answers.append(answer)
        }
        pushes = []
        authorization = nil
        return answers
    }

    /// Why no stream can be opened.
    private var notUsable: TransportFailure {
        if let broken { return broken }
        if let goAway { return .goAway(goAway.reason) }
        return .connectionBroke("no connection")
    }

    static func describe(_ failure: TransportFailure) -> String {
        switch failure {
        case .goAway(let reason): return "GOAWAY \(reason.map { #"{"reason":"\#($0.wire)"}"# } ?? "without a reason")"
        case .handshakeRefused(let why): return "TLS handshake refused: \(why)"
        case .streamRefused: return "stream refused (REFUSED_STREAM)"
        case .connectionBroke(let why): return why
        case .stopped(let why): return "stopped sending: \(why)"
        }
    }

    /// Queues one request; nghttp2 holds it while MAX_CONCURRENT_STREAMS streams are open.
    private func submit(_ push: OutgoingPush, authorization: String?, on session: OpaquePointer) -> Int32? {
        // Names and values side by side in one buffer (nghttp2 copies them when the request is
        // submitted); HTTP/2 names are lower case, and most are already. The fields the request
        // before had in the same place are kept as they were written; from the first that differs
        // on, each is copied in one pass over its bytes, lowered as it goes. Writing every field
        // of every push, generic appends and String comparisons were a sixth of the client's work
        // a push (callgrind).
        var field = 0
        var same = true
        func add(_ name: String, _ value: String, prefix: StaticString? = nil) {
            defer { field += 1 }
            if same, field < previousFields.count, previousFields[field].name == name,
                previousFields[field].value == value
            {
                return
            }
            if same {
                same = false
                keepFields(below: field)
            }
            let start = headerBytes.count
            Self.appendLowered(name, to: &headerBytes)
            let middle = headerBytes.count
            if let prefix { Self.append(prefix, to: &headerBytes) }
            Self.append(value, to: &headerBytes)
            headerSpans.append((start..<middle, middle..<headerBytes.count))
            previousFields.append((name, value))
        }
        add(":method", push.method)
        add(":scheme", scheme)
        add(":authority", authority)
        add(":path", push.deviceToken, prefix: "/3/device/")
        var hasAuthorization = false
        // The apns-id is new with every push: kept out of HPACK's tables (NO_INDEX), where each one
        // would push out an entry the next request could have used, on both sides.
        var uniqueField = -1
        var sentId: String?
        for header in push.headers {
            let name = field
            add(header.name, header.value)
            let span = headerSpans[name].0
            if Self.bytes(headerBytes, span, equal: "authorization") { hasAuthorization = true }
            if Self.bytes(headerBytes, span, equal: "apns-id") {
                uniqueField = name
                sentId = header.value
            }
        }
        if let authorization, !hasAuthorization { add("authorization", authorization) }
        // Fewer fields than the request before: the rest go.
        if same, field < previousFields.count { keepFields(below: field) }
        nameValues.removeAll(keepingCapacity: true)
        let stream: Int32 = headerBytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            for (index, (name, value)) in headerSpans.enumerated() {
                let flag = index == uniqueField ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
                nameValues.append(
                    nghttp2_nv(
                        name: base + name.lowerBound, value: base + value.lowerBound, namelen: name.count,
                        valuelen: value.count, flags: UInt8(flag.rawValue)))
            }
            // nghttp2 copies names and values when the request is submitted.
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readRequestBody)
            return nghttp2_submit_request(session, nil, nameValues, nameValues.count, &provider, nil)
        }
        guard stream > 0 else { return nil }
        if firstStream == 0 { firstStream = stream }
        // Streams are numbered in submission order; a gap (none is expected) is left unused.
        while slots.count < Int(stream - firstStream) / 2 { slots.append(Slot(state: .unused)) }
        slots.append(Slot(body: push.payload, sentId: sentId))
        waiting += 1
        return stream
    }

    /// Drops the request's fields from `field` on, their bytes and what they were given as.
    private func keepFields(below field: Int) {
        headerBytes.removeSubrange((field == 0 ? 0 : headerSpans[field - 1].1.upperBound)...)
        headerSpans.removeSubrange(field...)
        previousFields.removeSubrange(field...)
    }

    /// `text`'s bytes, upper-case ASCII lowered, at the end of `bytes`.
    private static func appendLowered(_ text: String, to bytes: inout [UInt8]) {
        let start = bytes.count
        append(text, to: &bytes)
        for index in start..<bytes.count where bytes[index] &- 65 < 26 { bytes[index] |= 0x20 }
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether `bytes[span]` spells `literal`.
    private static func bytes(_ bytes: [UInt8], _ span: Range<Int>, equal literal: StaticString) -> Bool {
        bytes.withUnsafeBufferPointer { Self.bytes(UnsafeBufferPointer(rebasing: $0[span]), equal: literal) }
    }

    /// Whether `bytes` spell `literal`.
    fileprivate static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, equal literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    /// Writes what nghttp2 has queued and reads answers until every stream is settled or the
    /// connection fails.
    private func run() {
        while isWaiting {
            submitMore()
            writeQueued()
            if !isWaiting { break }
            readOnce()
        }
    }

    /// Once a write fails, what APNs sent before closing (answers, its GOAWAY) is still read.
    @exclusivity(unchecked) private var cannotWrite = false

    /// Writes what nghttp2 has queued.
    private func writeQueued() {
        gatherFrames()
        guard !cannotWrite, !gathered.isEmpty else { return }
        cannotWrite = !gathered.withUnsafeBytes { write($0) }
        gathered.removeAll(keepingCapacity: true)
    }

    /// Takes the frames nghttp2 has ready into `gathered`, writing each 16 KiB as it fills.
    /// nghttp2 hands out a frame at a time: gathered, they go out as one TLS record and one send
    /// per 16 KiB, not one each (a batch of pushes is two frames a push; a send per frame was two
    /// fifths of the bulk sender's time).
    private func gatherFrames() {
        guard let session else { return }
        while !cannotWrite {
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            if length < 0 { return fail(.connectionBroke(String(cString: nghttp2_strerror(Int32(length))))) }
            if length == 0 { return }
            gathered.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            if gathered.count >= 16_384 {
                cannotWrite = !gathered.withUnsafeBytes { write($0) }
                gathered.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Reads what APNs sent (waiting for it up to the timeout) and hands it to nghttp2.
    private func readOnce() {
        let count = received.withUnsafeMutableBytes { read(into: $0) }
        hand(count)
    }

    /// Reads whatever has arrived, record after record, without waiting for more (`exchange
    /// (together:)`): a connection holding part of a record waited for the rest with the thread,
    /// while the other connections' answers sat unread and their deadlines ran out (an adversary's
    /// stalled lane had the other lane's 400 answered pushes sent again). True when bytes came.
    private func readAvailable() -> Bool {
        bytesArrived = false
        while isWaiting {
            let count = received.withUnsafeMutableBytes { read(into: $0, waiting: false) }
            if count == -2 { break }
            hand(count)
        }
        return bytesArrived || broken != nil
    }

    /// Hands `count` bytes of `received` to nghttp2; 0 or less is how the read ended.
    private func hand(_ count: Int) {
        guard let session else { return }
        if count <= 0 {
            if let alert, !answered { return fail(.handshakeRefused(alert)) }
            if let goAway { return fail(.goAway(goAway.reason)) }
            return fail(.connectionBroke(count == 0 ? "APNs closed the connection" : "no answer in time"))
        }
        let consumed = received.withUnsafeBufferPointer {
            nghttp2_session_mem_recv(session, $0.baseAddress, count)
        }
        if consumed < 0 { return fail(.connectionBroke(String(cString: nghttp2_strerror(Int32(consumed))))) }
    }

    /// The connection is unusable: every stream still waiting fails with `failure`.
    private func fail(_ failure: TransportFailure) {
        broken = failure
        for index in slots.indices where slots[index].state == .waiting {
            slots[index].answer.transportError = Self.describe(failure)
            slots[index].answer.failure = failure
            finish(index)
        }
    }

    /// The slot's answer is final; its buffers are let go.
    private func finish(_ index: Int) {
        slots[index].state = .finished
        slots[index].body = []
        slots[index].response = []
        waiting -= 1
    }

    fileprivate func receivedGoAway(lastStreamId: Int32, debugData: UnsafeBufferPointer<UInt8>) {
        let object = (try? JSONSerialization.jsonObject(with: Data(debugData))) as? [String: Any]
        goAway = (lastStreamId, (object?["reason"] as? String).flatMap(Reason.init(wire:)))
    }

    fileprivate func streamClosed(_ stream: Int32, errorCode: UInt32) {
        guard let index = waitingSlot(stream) else { return }
        let response = slots[index].response
        slots[index].response = []
        // Settled where it lies: a copy out and back retained and released each of its fields.
        if settle(&slots[index].answer, body: response, stream: stream, errorCode: errorCode) { answered = true }
        finish(index)
    }

    /// The answer of a stream that closed, from its body and how it closed; true if APNs answered it.
    private func settle(_ answer: inout PushAnswer, body: [UInt8], stream: Int32, errorCode: UInt32) -> Bool {
        answer.read(body: body)
        if answer.status != 0, errorCode == 0 { return true }
        answer.status = 0
        if let goAway, stream > goAway.lastStreamId {
            // Above GOAWAY's last-stream-id: never processed, safe to send again elsewhere.
            answer.failure = .goAway(goAway.reason)
            answer.transportError = "not processed: \(Self.describe(.goAway(goAway.reason)))"
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            answer.failure = .streamRefused
            answer.transportError = Self.describe(.streamRefused)
        } else {
            let why = "stream closed: \(String(cString: nghttp2_http2_strerror(errorCode)))"
            answer.failure = .connectionBroke(why)
            answer.transportError = why
        }
        return false
    }

    fileprivate func notSent(_ stream: Int32, why: Int32) {
        guard let index = waitingSlot(stream) else { return }
        let failure =
            goAway.map { TransportFailure.goAway($0.reason) }
            ?? .connectionBroke(String(cString: nghttp2_strerror(why)))
        slots[index].answer.failure = failure
        slots[index].answer.transportError = "not sent: \(Self.describe(failure))"
        finish(index)
    }

    fileprivate func header(
        _ stream: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>
    ) {
        guard let index = waitingSlot(stream) else { return }
        // `:status` is read from its three digits, without a string.
        if Self.bytes(name, equal: ":status") {
            let digits = value.count == 3 && value.allSatisfy { (48...57).contains($0) }
            slots[index].answer.status = digits ? value.reduce(0) { 10 * $0 + Int($1) - 48 } : 0
            return
        }
        let isApnsId = Self.bytes(name, equal: "apns-id")
        let name = String(decoding: name, as: UTF8.self)
        let text: String
        if isApnsId, var sent = slots[index].sentId, !value.isEmpty,
            sent.withUTF8({ $0.count == value.count && memcmp($0.baseAddress!, value.baseAddress!, value.count) == 0 })
        {
            text = sent  // APNs answers with the provider's own id, as sent
        } else {
            text = String(decoding: value, as: UTF8.self)
        }
        // APNs answers with one or two fields besides `:status` (`apns-id`, and `apns-unique-id`
        // in development): room for them at once, not a second allocation for the second.
        if slots[index].answer.headers.isEmpty { slots[index].answer.headers.reserveCapacity(2) }
        slots[index].answer.headers.append((name, text))
        if isApnsId { slots[index].answer.apnsId = text }
    }

    fileprivate func body(_ stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let index = waitingSlot(stream) else { return }
        slots[index].response.append(contentsOf: bytes)
    }

    fileprivate func readBody(_ stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int) -> (Int, Bool) {
        guard let index = waitingSlot(stream) else { return (0, true) }
        let offset = slots[index].offset
        let count = min(length, slots[index].body.count - offset)
        slots[index].body.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: count) }
        slots[index].offset += count
        return (count, offset + count == slots[index].body.count)
    }

    // MARK: The wire, TLS and the session

    private func open() {
        guard let host else {
            broken = .connectionBroke("bad URL \(configuration.url)")
            return
        }
        wire =
            configuration.dial.map { $0(host, port, configuration.timeout) }
            ?? TCPWire(host: host, port: port, timeout: configuration.timeout)
        guard wire != nil else {
            broken = .connectionBroke("cannot connect to \(host):\(port)")
            return
        }
        if scheme == "https", let why = startTLS(host: host) {
            broken = .handshakeRefused(why)
            return
        }
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, onNotSent)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        if let limit = options.initialStreamLimit { nghttp2_option_set_peer_max_concurrent_streams(option, limit) }
        // Closed streams are kept only for RFC 7540 priorities, which APNs ignores ([SEND]).
        nghttp2_option_set_no_closed_streams(option, 1)
        #if FUZZING || SANITIZED
            // malloc and free, whose every block AddressSanitizer watches (the arena reuses blocks).
            nghttp2_session_client_new2(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        #else
            var mem = ringside_arena_mem(arena)
            nghttp2_session_client_new3(&session, callbacks, Unmanaged.passUnretained(self).toOpaque(), option, &mem)
        #endif
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, 1)
    }

    /// TLS 1.2+, the server verified against the CA, ALPN h2, the client certificate when told.
    private func startTLS(host: String) -> String? {
        context = SSL_CTX_new(TLS_client_method())
        _ = ringside_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        SSL_CTX_set_verify(context, options.verifiesServer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
        if let ca = configuration.caFile {
            SSL_CTX_load_verify_locations(context, ca, nil)
        } else {
            SSL_CTX_set_default_verify_paths(context)
        }
        if case .certificate(let certificate, let key) = configuration.authentication {
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1,
                SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1
            else { return "cannot load the client certificate \(certificate)" }
        }
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        tls = SSL_new(context)
        if X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(tls), host) != 1 {
            _ = SSL_set1_host(tls, host)
            // SSL_set_tlsext_host_name is a macro; OpenSSL copies the name.
            _ = host.withCString {
                SSL_ctrl(
                    tls, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name),
                    UnsafeMutableRawPointer(mutating: $0))
            }
        }
        // Memory BIOs: OpenSSL's socket BIO writes with write(2), which raises SIGPIPE when APNs has
        // closed the connection; here every byte goes out through the wire (send(MSG_NOSIGNAL)).
        let incoming = BIO_new(BIO_s_mem())
        let outgoing = BIO_new(BIO_s_mem())
        _ = ringside_BIO_set_mem_eof_return(incoming, -1)  // empty means "wait for more", not EOF
        self.incoming = incoming
        self.outgoing = outgoing
        SSL_set_bio(tls, incoming, outgoing)
        SSL_set_connect_state(tls)
        while true {
            let result = SSL_do_handshake(tls)
            guard flushTLS() else { return "APNs closed the connection during the TLS handshake" }
            if result == 1 { return nil }
            guard SSL_get_error(tls, result) == SSL_ERROR_WANT_READ else {
                return "TLS handshake failed: \(CryptoError.openSSLQueue())"
            }
            guard fillTLS() > 0 else { return "APNs closed the connection during the TLS handshake" }
        }
    }

    /// Sends what OpenSSL has written into `outgoing`.
    private func flushTLS() -> Bool {
        while ringside_BIO_pending(outgoing) > 0 {
            let sent = chunk.withUnsafeMutableBytes { chunk -> Bool in
                let count = Int(BIO_read(outgoing, chunk.baseAddress, Int32(chunk.count)))
                return count > 0 && wire!.send(UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            }
            guard sent else { return false }
        }
        return true
    }

    /// Reads from the wire into `incoming`: the count, 0 when APNs closed, -1 on a timeout or error.
    private func fillTLS(waiting: Bool = true) -> Int {
        chunk.withUnsafeMutableBytes { chunk in
            let count = waiting ? wire!.receive(into: chunk) : wire!.receiveNow(into: chunk)
            if count > 0 {
                BIO_write(incoming, chunk.baseAddress, Int32(count))
                bytesArrived = true
            }
            return count
        }
    }

    /// Set when bytes came from the wire (`readAvailable` counts a part of a record as a sign of life).
    @exclusivity(unchecked) private var bytesArrived = false

    /// Frames from nghttp2 waiting to be written together (`run`).
    @exclusivity(unchecked) private var gathered: [UInt8] = []
    /// Plaintext read for nghttp2, kept between reads.
    @exclusivity(unchecked) private var received = [UInt8](repeating: 0, count: 16_384)
    /// The buffer between the wire and the memory BIOs, kept: `flushTLS` runs after every read,
    /// and a fresh 16 KiB zeroed array each time showed in the bulk sender's profile.
    @exclusivity(unchecked) private var chunk = [UInt8](repeating: 0, count: 16_384)

    private func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let tls else { return wire!.send(bytes) }
        // A memory BIO takes everything at once.
        guard SSL_write(tls, bytes.baseAddress, Int32(bytes.count)) == Int32(bytes.count) else { return false }
        return flushTLS()
    }

    /// Bytes read, 0 when the peer closed, -1 on a timeout or an error.
    /// Without `waiting`, -2 when nothing more has arrived (`Wire.receiveNow`).
    private func read(into buffer: UnsafeMutableRawBufferPointer, waiting: Bool = true) -> Int {
        guard let tls else {
            let count = waiting ? wire!.receive(into: buffer) : wire!.receiveNow(into: buffer)
            if count > 0 { bytesArrived = true }
            return count
        }
        while true {
            let count = Int(SSL_read(tls, buffer.baseAddress, Int32(buffer.count)))
            guard flushTLS() else { return 0 }
            if count > 0 { return count }
            let error = SSL_get_error(tls, Int32(count))
            if error == SSL_ERROR_SSL {
                // An alert after the handshake: under TLS 1.3 a refused client certificate shows here.
                alert = CryptoError.openSSLQueue()
                return 0
            }
            guard error == SSL_ERROR_WANT_READ else { return 0 }
            let filled = fillTLS(waiting: waiting)
            if filled <= 0 { return filled }
        }
    }

    fileprivate static func with<T>(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2ClientConnection) -> T) -> T {
        body(Unmanaged<HTTP2ClientConnection>.fromOpaque(userData!).takeUnretainedValue())
    }
}

private let onFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) else { return 0 }
    let goAway = frame.pointee.goaway
    HTTP2ClientConnection.with(userData) {
        $0.receivedGoAway(
            lastStreamId: goAway.last_stream_id,
            debugData: UnsafeBufferPointer(start: goAway.opaque_data, count: goAway.opaque_data_len))
    }
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    HTTP2ClientConnection.with(userData) {
        $0.header(
            frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
            value: UnsafeBufferPointer(start: value, count: valueLength))
    }
    return 0
}

private let onData: nghttp2_on_data_chunk_recv_callback = { _, _, stream, data, length, userData in
    HTTP2ClientConnection.with(userData) { $0.body(stream, UnsafeBufferPointer(start: data, count: length)) }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, stream, errorCode, userData in
    HTTP2ClientConnection.with(userData) { $0.streamClosed(stream, errorCode: errorCode) }
    return 0
}

/// A request nghttp2 would not send (after GOAWAY: NGHTTP2_ERR_START_STREAM_NOT_ALLOWED).
private let onNotSent: nghttp2_on_frame_not_send_callback = { _, frame, code, userData in
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    HTTP2ClientConnection.with(userData) { $0.notSent(frame.pointee.hd.stream_id, why: code) }
    return 0
}

private let readRequestBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, userData in
    let (count, done) = HTTP2ClientConnection.with(userData) { $0.readBody(stream, into: buffer!, length: length) }
    if done { flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    return count
}
