import Foundation
import Synchronization

/// Where and how the server listens.
public struct ServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 picks a free port (see `HTTP2Server.port`).
    public var port: UInt16 = 2197
    /// nil serves cleartext HTTP/2 with prior knowledge (h2c).
    public var tls: TLSContext?
    public var limits = HTTP2Limits()
    /// Close connections idle this long (seconds) with GOAWAY; nil never.
    public var idleTimeout: Double?
    /// Close TLS connections whose handshake has not finished after this many seconds; nil never.
    public var handshakeTimeout: Double? = 10
    /// Close connections the handler has not trusted (`ConnectionControl.trust()`, e.g. after an
    /// authenticated request) this many seconds after they opened; nil never. Unauthenticated
    /// clients then cannot hold the slots of `maximumConnections` that the token holder needs.
    public var untrustedTimeout: Double?
    /// Cleartext only: a client that does not open with the HTTP/2 preface is served as HTTP/1.1
    /// (for a JSON control API that plain `curl` can reach).
    public var acceptsHTTP1 = false
    /// Connections open at once, across workers; one more is accepted and closed at once (and reported
    /// as refused) rather than left waiting in the backlog. nil: no cap but the process's file limit.
    public var maximumConnections: Int?
    /// The first worker only accepts and deals connections to the others (with two workers or more):
    /// a slow request never holds up accepting (the control API: one serving thread, one accepting).
    public var acceptorOnly = false
    /// Event-loop threads; one per core by default.
    public var workers: Int = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    /// epoll on Linux; the portable poll loop elsewhere, or when `RINGSIDE_EVENT_LOOP=poll`.
    public var eventLoop = EventLoop.standard

    public init() {}
}

/// An HTTP/2 server: a listening socket and a few event loops that serve many connections
/// each (not a thread per connection). Only this file and `Worker` touch file descriptors.
/// Unchecked Sendable: `listener`, `workers`, `threads` and `port` are written only by the owner in `start` and
/// `stop`, before the loops run and after they end; other threads only read them; workers guard their own state.
public final class HTTP2Server: @unchecked Sendable {
    public let configuration: ServerConfiguration
    private let service: any HTTP2Service
    private var listener: Int32 = -1
    private var workers: [Worker] = []
    private var threads: [JoinableThread] = []
    /// The port actually bound.
    public private(set) var port: UInt16 = 0
    private let ids = ConnectionIds()

    /// Connections accepted so far (each ends up opened, or refused with a reason, for the service).
    public var connectionsAccepted: UInt64 { ids.count }

    public init(configuration: ServerConfiguration, service: any HTTP2Service) {
        self.configuration = configuration
        self.service = service
    }

    /// Binds, listens and starts the event loops; returns once the port accepts connections.
    public func start() throws(ServerError) {
        signal(SIGPIPE, SIG_IGN)
        listener = try Self.listen(host: configuration.host, port: configuration.port)
        port = Self.boundPort(listener)
        for index in 0..<configuration.workers {
            let worker = try Worker(
                index: index, listener: listener, configuration: configuration, service: service, ids: ids)
            workers.append(worker)
        }
        for worker in workers { worker.team = workers }
        for (index, worker) in workers.enumerated() {
            do {
                threads.append(try JoinableThread(name: "ringside-h2-\(index)") { worker.run() })
            } catch {
                stop(grace: 0)
                throw error
            }
        }
    }

    /// Serves new connections with another TLS context (a fault plan swaps in an untrusted server
    /// certificate); open connections keep theirs.
    public func replaceTLSContext(_ context: TLSContext) {
        for worker in workers { worker.tlsSlot.set(context) }
    }

    /// Sends GOAWAY (NO_ERROR, with `debugData`) on every connection, waits up to `grace` seconds for
    /// them to be written, closes everything and stops the loops.
    public func stop(goAwayDebugData: [UInt8] = [], grace: Double = 1) {
        for worker in workers { worker.requestStop(debugData: goAwayDebugData, grace: grace) }
        // Joined, not only finished: their thread-local cleanup (OpenSSL's) is done before we return.
        for thread in threads { thread.join() }
        threads = []
        for worker in workers { worker.team = [] }  // the workers referred to each other
        if listener >= 0 {
            close(listener)
            listener = -1
        }
    }

    /// How many connections are open now (for tests and the log).
    public var openConnections: Int { workers.reduce(0) { $0 + $1.connectionCount } }

    private static func listen(host: String, port: UInt16) throws(ServerError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Socket.stream
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw ServerError("cannot resolve <\(host)>: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }
        let fd = socket(first.pointee.ai_family, Socket.stream, 0)
        guard fd >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        Socket.prepare(fd)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ServerError("cannot bind \(host):\(port): \(reason)")
        }
        guard Foundation.listen(fd, 1024) == 0 else {
            close(fd)
            throw ServerError("listen: \(String(cString: strerror(errno)))")
        }
        return fd
    }

    private static func boundPort(_ fd: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer -> UInt16 in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
    }
}

/// Why the server could not start.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Hands out connection ids across workers: 1, 2, 3 …
final class ConnectionIds: Sendable {
    private let last = Atomic<UInt64>(0)
    func take() -> UInt64 { last.add(1, ordering: .relaxed).newValue }
    var count: UInt64 { last.load(ordering: .relaxed) }
}

/// Seconds on the monotonic clock, for idle timeouts.
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// A NUL-terminated C buffer as a Swift string.
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The TLS context new connections get; swappable while serving.
final class TLSContextSlot: Sendable {
    private let context: Mutex<TLSContext?>

    init(_ context: TLSContext?) { self.context = Mutex(context) }

    func get() -> TLSContext? { context.withLock { $0 } }

    func set(_ context: TLSContext) { self.context.withLock { $0 = context } }
}

/// What differs between the systems' socket interfaces, in one place.
public enum Socket {
    /// A stream socket's type (an enum's raw value in Glibc, a plain number in Darwin).
    public static var stream: Int32 {
        #if os(Linux)
            Int32(SOCK_STREAM.rawValue)
        #else
            SOCK_STREAM
        #endif
    }

    /// Flags for every `send`: no SIGPIPE when the peer has gone (Darwin has no such flag: `prepare`
    /// sets SO_NOSIGPIPE on the socket instead).
    public static var sendFlags: Int32 {
        #if os(Linux)
            Int32(MSG_NOSIGNAL)
        #else
            0
        #endif
    }

    /// Non-blocking, closed on exec, and (where `send` cannot say so) no SIGPIPE.
    public static func prepare(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #if !os(Linux)
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
