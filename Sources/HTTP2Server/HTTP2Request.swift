/// One HTTP/2 request as the engine delivers it: header fields in arrival order and the body.
public struct HTTP2Request: Sendable {
    public var streamId: Int32
    /// Header fields as received (pseudo-headers first, RFC 9113 §8.3); names are lower case.
    public var headers: [(name: String, value: String)] = []
    /// The body, kept up to `HTTP2Limits.maximumKeptBody` bytes.
    public var body: [UInt8] = []
    /// How many body bytes arrived in all, kept or not.
    public var bodyLength = 0
    /// Set when the header list passed `HTTP2Limits.maximumHeaderListSize`; later fields were dropped.
    public var headerListTooLarge = false

    public init(streamId: Int32) { self.streamId = streamId }
}

/// A response to one stream: status, header fields, and an optional body.
public struct HTTP2Response: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The SETTINGS and limits a server connection uses.
public struct HTTP2Limits: Sendable {
    /// SETTINGS APNs advertises (APNS-REFERENCE §6.1, observed 2021).
    public var headerTableSize: UInt32 = 4096
    public var maxConcurrentStreams: UInt32 = 1000
    public var initialWindowSize: UInt32 = 65535
    public var maxFrameSize: UInt32 = 16384
    public var maxHeaderListSize: UInt32 = 8000
    /// How many body bytes of one request are kept; the rest is counted and dropped, so an 8 MB body
    /// costs no memory. 5121 is enough to judge APNs' largest limit (5120, VoIP).
    public var maximumKeptBody = 8192
    /// Stop reading from a client while this many bytes wait to be written to it (back-pressure).
    public var maximumPendingOutput = 1 << 20

    public init() {}
}
