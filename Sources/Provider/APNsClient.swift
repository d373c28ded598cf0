import APNs
import CCurl
import Foundation
import Synchronization

/// How the reference provider reaches APNs (the provider contract of docs/architecture.md).
public struct ClientConfiguration: Sendable {
    public enum Authentication: Sendable {
        case token(keyFile: String, keyId: String, teamId: String)
        case certificate(certificateFile: String, keyFile: String)
    }

    /// `https://host:port` (TLS, ALPN h2) or `http://host:port` (h2c, prior knowledge).
    public var url: String
    public var caFile: String?
    public var authentication: Authentication
    /// Gives up on an answer after this many seconds (a dropped stream must not hang the provider).
    public var timeout: Double = 10
    /// HTTP/2 connections, each with its own thread while sending; one unless told otherwise.
    public var connections = 1
    /// Opens a connection's `Wire` to `host`, `port`, reads bounded by `timeout`, for the nghttp2
    /// client (the built-in provider, `BulkSender`; libcurl's `APNsClient` always uses TCP). nil: TCP;
    /// a dial that returns nothing is a connection that failed. Tests give a fake APNs in memory here
    /// (one connection at a time, from one thread); `url` still names the scheme and host.
    public var dial: (@Sendable (_ host: String, _ port: Int, _ timeout: Double) -> (any Wire)?)?
    /// The provider's wall clock, in seconds since 1970: JWTs' `iat`, when a token was registered,
    /// expiration dates. A test with a manual clock gives its own here.
    public var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    public init(
        url: String, caFile: String?, authentication: Authentication, timeout: Double = 10, connections: Int = 1
    ) {
        self.url = url
        self.caFile = caFile
        self.authentication = authentication
        self.timeout = timeout
        self.connections = connections
    }
}

/// One push to send: the device token, the payload, and every header.
public struct OutgoingPush: Sendable {
    public var deviceToken: String
    public var payload: [UInt8]
    /// Header fields in order, e.g. `("apns-topic", "com.example.app.voip")`.
    public var headers: [(name: String, value: String)]
    public var method = "POST"

    public init(deviceToken: String, payload: [UInt8], headers: [(name: String, value: String)]) {
        self.deviceToken = deviceToken
        self.payload = payload
        self.headers = headers
    }

    /// A VoIP push exactly right ([PK-VOIP], [SEND]): `.voip` topic, push type voip, priority 10,
    /// expiration 0, an apns-id, the call id and caller in the payload.
    public static func voip(token: String, bundleId: String, callUUID: String, caller: String, apnsId: String)
        -> OutgoingPush
    {
        voip(token: token, topic: bundleId + ".voip", callUUID: callUUID, caller: caller, apnsId: apnsId)
    }

    /// The same, to a VoIP topic made once (a load's every push: `ReferenceProvider`).
    static func voip(token: String, topic: String, callUUID: String, caller: String, apnsId: String) -> OutgoingPush {
        // Written as bytes: an interpolated String and its copy into an array were a tenth of the
        // bulk sender's work a push (callgrind).
        var payload: [UInt8] = []
        payload.reserveCapacity(42 + callUUID.utf8.count + caller.utf8.count)
        payload.append(contentsOf: #"{"aps":{},"callUUID":""#.utf8)
        payload.append(contentsOf: callUUID.utf8)
        payload.append(contentsOf: #"","handle":""#.utf8)
        payload.append(contentsOf: caller.utf8)
        payload.append(contentsOf: #""}"#.utf8)
        return OutgoingPush(
            deviceToken: token, payload: payload,
            headers: [
                ("apns-topic", topic), ("apns-push-type", "voip"), ("apns-priority", "10"),
                ("apns-expiration", "0"), ("apns-id", apnsId),
            ])
    }
}

/// What APNs answered, or why there is no answer.
public struct PushAnswer: Sendable {
    public var status: Int
    public var apnsId: String?
    public var reason: Reason?
    /// The reason string as sent, also when it is not in the vocabulary.
    public var reasonText: String?
    /// With 410: when the device token stopped being valid, milliseconds since 1970.
    public var timestamp: Int64?
    public var headers: [(name: String, value: String)] = []
    /// libcurl's error when the exchange failed (status 0).
    public var transportError: String?
    /// How many times it was sent (a retry on a fresh connection counts).
    public var attempts = 1
    /// The connection broke under the request (libcurl 7.88's HTTP/2 failure, a GOAWAY): worth sending
    /// again at once on a fresh connection, unlike a refused TLS handshake.
    var connectionLost = false
    /// Why there is no HTTP answer, for the connection policy (the built-in provider's transport).
    public var failure: TransportFailure?
    /// Which of the provider's connections it went on (1, 2 …).
    public var connection = 0

    init(status: Int = 0, transportError: String? = nil) {
        self.status = status
        self.transportError = transportError
    }

    init(failure: TransportFailure) {
        self.init(status: 0, transportError: HTTP2ClientConnection.describe(failure))
        self.failure = failure
    }

    /// Takes the response body: a 200 has none; an error's is JSON with the reason and, for 410, the
    /// timestamp ([RESP]).
    mutating func read(body: [UInt8]) {
        guard !body.isEmpty, let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        else { return }
        reasonText = object["reason"] as? String
        reason = reasonText.flatMap(Reason.init(wire:))
        timestamp = (object["timestamp"] as? NSNumber)?.int64Value
    }
}

/// An APNs client on libcurl: HTTP/2, many streams multiplexed on one connection (more when told),
/// provider-token or certificate authentication. The reference provider's transport.
public final class APNsClient {
    public let configuration: ClientConfiguration
    private var tokens: ProviderTokenCache?
    /// One per connection; each lane is driven by one thread at a time.
    private let lanes: [Lane]

    /// `streamsPerConnection`: how many streams a connection carries before it is let go for a
    /// fresh one (`Lane.streamsOnConnection` says why; nil: until the server ends it, which tests of
    /// the GOAWAY and its retry ask for). At least 1.
    public init(configuration: ClientConfiguration, streamsPerConnection: Int? = 900) throws {
        self.configuration = configuration
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        let limit = streamsPerConnection.map { max(1, $0) } ?? .max
        lanes = (0..<max(1, configuration.connections)).map { _ in Lane(configuration, streamsPerConnection: limit) }
        tokens = try ProviderTokenCache.load(for: configuration.authentication)
    }

    /// How many connections libcurl has opened so far.
    public var connectionsOpened: Int { lanes.reduce(0) { $0 + $1.connectionsOpened } }

    /// How many JWTs were signed so far (token authentication).
    public var signedTokens: Int { tokens?.signed ?? 0 }

    /// APNs answered `ExpiredProviderToken`: the next request carries a new JWT.
    public func providerTokenExpired() { tokens?.expired() }

    /// Sends the pushes concurrently, multiplexed over the client's connections (consecutive slices,
    /// one thread per connection when there are several); answers come back in the same order.
    ///
    /// Debian's libcurl 7.88.1 fails a reused HTTP/2 connection after about 1,000 requests with
    /// CURLE_HTTP2 (16). The cause, found with the mock: libcurl 7.88 sends RST_STREAM(STREAM_CLOSED)
    /// for every stream it has finished, and a server with nghttp2's rapid-reset protection
    /// (CVE-2023-44487: a burst of 1,000, then 33 a second; `serve --reset-limit 1000/33`) ends the
    /// connection with GOAWAY INTERNAL_ERROR; streams in flight fail. Such a request is sent once more
    /// on a fresh connection — which delivers every push, but libcurl also fails some streams APNs had
    /// accepted, so a few pushes arrive twice (bench/provider.sh counts them); the payload's call UUID
    /// lets the app see the second as the same call.
    public func send(_ pushes: [OutgoingPush], retryOnFreshConnection: Bool = true) throws -> [PushAnswer] {
        let authorization = try tokens?.authorization(at: configuration.now())
        return try sendInLanes(lanes, pushes.map { ($0, authorization) }) { lane, slice in
            lane.send(slice, retryOnFreshConnection: retryOnFreshConnection)
        }
    }
}

/// Sends `work` over `lanes` (one connection each): consecutive slices at once, a thread per lane
/// (`DispatchQueue.concurrentPerform`), the calling thread alone when one lane is enough; answers come
/// back in the order of `work`. A lane is driven by one thread at a time. The first error is thrown.
func sendInLanes<Lane, Work: Sendable>(
    _ lanes: [Lane], _ work: [Work], _ send: (Lane, [Work]) throws -> [PushAnswer]
) throws -> [PushAnswer] {
    let slices = laneSlices(work, lanes: lanes.count)
    if slices.count <= 1 { return try send(lanes[0], work) }
    let results = LaneResults(count: slices.count)
    withoutActuallyEscaping(send) { send in
        let lanes = UncheckedLanes(lanes: lanes, send: send)
        DispatchQueue.concurrentPerform(iterations: slices.count) { index in
            results.set(index, Result { try lanes.send(lanes.lanes[index], slices[index]) })
        }
    }
    return try results.joined()
}

/// `work` in consecutive slices of one size, one for each of at most `lanes` lanes (at least one
/// slice, however little work).
func laneSlices<Work>(_ work: [Work], lanes: Int) -> [[Work]] {
    let lanes = max(1, min(lanes, work.count))
    if lanes == 1 { return [work] }
    let size = (work.count + lanes - 1) / lanes
    return stride(from: 0, to: work.count, by: size).map { Array(work[$0..<min($0 + size, work.count)]) }
}

/// The lanes and what sends on them, handed to `concurrentPerform`'s threads.
/// Unchecked Sendable: each thread uses its own lane, and `send` only for it.
private struct UncheckedLanes<Lane, Work>: @unchecked Sendable {
    let lanes: [Lane]
    let send: (Lane, [Work]) throws -> [PushAnswer]
}

/// Each lane's answers, written by its own thread.
private final class LaneResults: Sendable {
    private let slots: Mutex<[Result<[PushAnswer], any Error>]>

    init(count: Int) { slots = Mutex(Array(repeating: .success([]), count: count)) }

    func set(_ index: Int, _ answers: Result<[PushAnswer], any Error>) { slots.withLock { $0[index] = answers } }

    func joined() throws -> [PushAnswer] { try slots.withLock { $0 }.flatMap { try $0.get() } }
}

/// One libcurl multi handle and its connection, the easy handles it reuses and its sockets. Driven
/// by one thread at a time (libcurl's rule for a multi handle).
/// Unchecked Sendable: used from one thread at a time (the caller of `APNsClient.send`, or the
/// `concurrentPerform` thread given its slice); `idle`, `answered` and the multi handle have no lock.
private final class Lane: @unchecked Sendable {
    let configuration: ClientConfiguration
    private let multi: UnsafeMutableRawPointer
    /// Easy handles ready for reuse.
    private var idle: [Exchange] = []
    private let sockets = CorkedSockets()
    /// Whether the connection has answered a request: APNs allows one stream on a new connection until
    /// a request carries a valid JWT, and refuses the rest of a burst sent before its SETTINGS
    /// (libcurl 7.88 sends one without waiting for them, then retries each refused stream on a new
    /// connection). Until then one push at a time.
    private var answered = false
    /// Streams begun on the current connection. libcurl 7.88 resets each stream it finishes, and a
    /// server with nghttp2's rapid-reset protection (a burst of 1,000) ends the connection with
    /// GOAWAY past it: the streams in flight are lost, and libcurl moves them all at once onto a new
    /// connection, where APNs refuses all but one until a JWT is accepted; libcurl sends each refused
    /// one on yet another connection (bench/provider.sh, before: 4,340 connections and 1,022 pushes
    /// a second for 20,000 pushes, some failed). So a connection is let go before: after
    /// `streamsPerConnection` streams, the rest wait until those are answered, and the next opens a
    /// fresh connection.
    private var streamsOnConnection = 0
    private let streamsPerConnection: Int

    init(_ configuration: ClientConfiguration, streamsPerConnection: Int) {
        self.configuration = configuration
        self.streamsPerConnection = streamsPerConnection
        multi = curl_multi_init()!
        _ = ringside_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, ringside_CURLPIPE_MULTIPLEX())
        _ = ringside_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
    }

    deinit { curl_multi_cleanup(multi) }

    var connectionsOpened: Int { sockets.opened }

    func send(_ work: [(OutgoingPush, String?)], retryOnFreshConnection: Bool) -> [PushAnswer] {
        var answers = perform(work.map { ($0.0, $0.1, false) })
        // A stream above a GOAWAY's last-stream-id, or libcurl 7.88's HTTP/2 failure: once more, on a
        // new connection. Not a failed TLS handshake: the caller decides when to try that again.
        guard retryOnFreshConnection else { return answers }
        let retry = answers.indices.filter { answers[$0].connectionLost }
        if !retry.isEmpty {
            // The first opens a fresh connection, alone (one stream until its JWT is accepted); the
            // rest follow it there. A fresh connection each was a connection a push: thousands
            // under the rapid-reset limit, each with its own handshake and its own refused burst.
            let again = perform(retry.enumerated().map { (work[$1].0, work[$1].1, $0 == 0) })
            for (index, answer) in zip(retry, again) {
                answers[index] = answer
                answers[index].attempts = 2
            }
        }
        return answers
    }

    /// Sends with at most `window` streams in flight: a finished stream makes room for the next push
    /// at once, so the connection never idles between batches.
    private func perform(_ work: [(OutgoingPush, String?, Bool)], window: Int = 100) -> [PushAnswer] {
        var answers = [PushAnswer](repeating: PushAnswer(status: 0), count: work.count)
        var inFlight: [UnsafeMutableRawPointer: (index: Int, exchange: Exchange)] = [:]
        var next = 0
        func admit() {
            while next < work.count, inFlight.count < (answered ? window : 1) {
                if streamsOnConnection >= streamsPerConnection, !inFlight.isEmpty { break }
                var (push, authorization, fresh) = work[next]
                if streamsOnConnection >= streamsPerConnection { fresh = true }
                if fresh {
                    answered = false
                    streamsOnConnection = 0
                }
                streamsOnConnection += 1
                let exchange = idle.popLast() ?? Exchange(configuration, sockets: sockets)
                exchange.reset(for: push)
                exchange.configure(authorization: authorization, freshConnection: fresh)
                curl_multi_add_handle(multi, exchange.handle)
                inFlight[exchange.handle] = (next, exchange)
                next += 1
            }
        }
        admit()
        var running: Int32 = 1
        while !inFlight.isEmpty {
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let entry = inFlight.removeValue(forKey: handle)
                else { continue }
                let result = ringside_curl_msg_result(message)
                entry.exchange.finish(result)
                // CURLE_RECV_ERROR (56) on a connection that has answered before: it ended under the
                // stream (a graceful close after GOAWAY reads as 56), not a refused certificate.
                if result.rawValue == 56, answered { entry.exchange.answer.connectionLost = true }
                answers[entry.index] = entry.exchange.answer
                // A lost connection's other streams fail next: they are lost too, not refusals.
                if entry.exchange.answer.status != 0 {
                    answered = true
                } else if !entry.exchange.answer.connectionLost {
                    answered = false
                }
                curl_multi_remove_handle(multi, handle)
                // Easy handles are kept for the next pushes: making one costs more than the request.
                if idle.count < 1000 { idle.append(entry.exchange) }
            }
            // What libcurl wrote in this round (frames of many streams, RST_STREAMs of finished ones)
            // leaves now, together.
            sockets.flush()
            admit()
            if !inFlight.isEmpty, running > 0 { curl_multi_poll(multi, nil, 0, 100, nil) }
        }
        return answers
    }
}

/// One request and its response, with libcurl's callbacks writing into it.
final class Exchange {
    let handle: UnsafeMutableRawPointer
    private(set) var push = OutgoingPush(deviceToken: "", payload: [], headers: [])
    var headerList: UnsafeMutablePointer<curl_slist>?
    var body: [UInt8] = []
    var answer = PushAnswer(status: 0)
    private var responseHeaders: [(String, String)] = []
    /// APNs's `https://host:port` (or `http://` for h2c).
    private let url: String

    /// A handle with the options that stay the same for every push of the client, set once.
    init(_ configuration: ClientConfiguration, sockets: CorkedSockets) {
        handle = curl_easy_init()!
        url = configuration.url
        sockets.watch(handle)
        let cleartext = configuration.url.hasPrefix("http://")
        let version = cleartext ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS
        _ = ringside_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, version)
        _ = ringside_curl_setopt_long(handle, CURLOPT_PIPEWAIT, 1)
        // No SIGPIPE dance around every call (libcurl otherwise installs and restores a handler
        // several times per request); sends use MSG_NOSIGNAL.
        _ = ringside_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = ringside_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(configuration.timeout * 1000))
        if let ca = configuration.caFile { _ = ringside_curl_setopt_string(handle, CURLOPT_CAINFO, ca) }
        if case .certificate(let certificate, let key) = configuration.authentication {
            _ = ringside_curl_setopt_string(handle, CURLOPT_SSLCERT, certificate)
            _ = ringside_curl_setopt_string(handle, CURLOPT_SSLKEY, key)
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = ringside_curl_setopt_write_function(handle, writeBody)
        _ = ringside_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        _ = ringside_curl_setopt_header_function(handle, writeHeader)
        _ = ringside_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
    }

    /// Prepares the handle for another push (`configure` then sets what differs per push).
    func reset(for push: OutgoingPush) {
        self.push = push
        body.removeAll(keepingCapacity: true)
        answer = PushAnswer(status: 0)
        responseHeaders.removeAll(keepingCapacity: true)
        curl_slist_free_all(headerList)
        headerList = nil
    }

    deinit {
        curl_slist_free_all(headerList)
        curl_easy_cleanup(handle)
    }

    func configure(authorization: String?, freshConnection: Bool) {
        _ = ringside_curl_setopt_string(handle, CURLOPT_URL, "\(url)/3/device/\(push.deviceToken)")
        _ = ringside_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, push.method)
        if push.method == "POST" {
            _ = ringside_curl_setopt_long(handle, CURLOPT_POST, 1)
            _ = ringside_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, push.payload.count)
            push.payload.withUnsafeBufferPointer { buffer in
                // COPYPOSTFIELDS: libcurl keeps its own copy of the body.
                _ = ringside_curl_setopt_pointer(
                    handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress))
            }
        }
        _ = ringside_curl_setopt_long(handle, CURLOPT_FRESH_CONNECT, freshConnection ? 1 : 0)
        var fields = push.headers.map { "\($0.name): \($0.value)" }
        let hasOwn = push.headers.contains { $0.name.utf8.count == 13 && $0.name.lowercased() == "authorization" }
        if let authorization, !hasOwn {
            fields.append("authorization: \(authorization)")
        }
        fields.append("Expect:")  // no 100-continue round trip
        fields.append("content-type:")  // APNs needs none; Apple's samples send none
        for field in fields { headerList = curl_slist_append(headerList, field) }
        _ = ringside_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
    }

    private static let statusLine = Array("HTTP/".utf8)
    /// libcurl results of an HTTP/2 connection that failed under its streams: CURLE_HTTP2 (16) and
    /// CURLE_HTTP2_STREAM (92). Not CURLE_RECV_ERROR (56): libcurl 7.88 reports a client certificate
    /// refused after a TLS 1.3 handshake with it too, and that does not heal by reconnecting at once.
    private static let lostConnection: Set<UInt32> = [16, 92]

    /// One response header line from libcurl ("name: value\r\n"); the status line is skipped.
    func header(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), !bytes.starts(with: Self.statusLine) else { return }
        func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 || byte == 10 }
        var start = colon + 1
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        // HTTP/2 field names are lowercase (RFC 9113 §8.2.1).
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self)
        responseHeaders.append(
            (name, String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)))
    }

    func finish(_ code: CURLcode) {
        var status = 0
        _ = ringside_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        answer.status = code == CURLE_OK ? status : 0
        answer.headers = responseHeaders
        answer.apnsId = responseHeaders.first { $0.0 == "apns-id" }?.1
        if code != CURLE_OK {
            answer.connectionLost = Self.lostConnection.contains(code.rawValue)
            answer.transportError = "libcurl error \(code.rawValue): \(String(cString: curl_easy_strerror(code)))"
        }
        answer.read(body: body)
    }
}

private let writeBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, userData in
    let exchange = Unmanaged<Exchange>.fromOpaque(userData!).takeUnretainedValue()
    let length = size * count
    data?.withMemoryRebound(to: UInt8.self, capacity: length) {
        exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

private let writeHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, userData in
    let exchange = Unmanaged<Exchange>.fromOpaque(userData!).takeUnretainedValue()
    let length = size * count
    data?.withMemoryRebound(to: UInt8.self, capacity: length) {
        exchange.header(UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}
