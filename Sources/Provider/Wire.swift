import Foundation

/// Where one connection's bytes travel: a TCP socket to APNs (`TCPWire`), or whatever
/// `ClientConfiguration.dial` gives — a test's fake APNs in the same process, with no socket. TLS
/// and HTTP/2 run above it either way.
public protocol Wire: AnyObject {
    /// Sends every byte; false once the other end has gone.
    func send(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Reads what has arrived, waiting at most the connection's timeout: the count; 0 once the
    /// other end closed; -1 when nothing came in time, or the read failed.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// A descriptor `poll` can wait on for what `receive` would read, so that one thread can wait
    /// on several connections at once (`HTTP2ClientConnection.exchange(together:)`); nil for a wire
    /// that has none (each is then read in turn).
    var descriptor: Int32? { get }
    /// What has arrived, without waiting: the count; 0 once the other end closed; -1 when the read
    /// failed; -2 when nothing is there yet. Only a wire with a `descriptor` is asked.
    func receiveNow(into buffer: UnsafeMutableRawBufferPointer) -> Int
}

extension Wire {
    public var descriptor: Int32? { nil }
    /// `receive` once `poll` says the descriptor is readable (a wire without one waits, as `receive`).
    public func receiveNow(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let descriptor else { return receive(into: buffer) }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 ? receive(into: buffer) : -2
    }
}

/// A TCP connection, `TCP_NODELAY`, reads bounded by the timeout (`SO_RCVTIMEO`).
final class TCPWire: Wire {
    private let fd: Int32

    init?(host: String, port: Int, timeout: Double) {
        var hints = addrinfo()
        #if os(Linux)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        var connected: Int32 = -1
        while let address = entry, connected < 0 {
            let fd = Foundation.socket(
                address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            if fd >= 0, connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                connected = fd
            } else if fd >= 0 {
                close(fd)
            }
            entry = address.pointee.ai_next
        }
        guard connected >= 0 else { return nil }
        fd = connected
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if !os(Linux)
            // No MSG_NOSIGNAL here (see `Self.sendFlags`): the socket itself raises no SIGPIPE.
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        // Fractions count, and a timeout of 0 would be none at all: at least a millisecond.
        let bounded = max(timeout, 0.001)
        var limit = timeval(
            tv_sec: Int(bounded), tv_usec: .init((bounded - bounded.rounded(.down)) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// No SIGPIPE from a send to a peer that has gone: MSG_NOSIGNAL on Linux, SO_NOSIGPIPE on the
    /// socket elsewhere.
    static var sendFlags: Int32 {
        #if os(Linux)
            Int32(MSG_NOSIGNAL)
        #else
            0
        #endif
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = Foundation.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Self.sendFlags)
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int { recv(fd, buffer.baseAddress, buffer.count, 0) }

    var descriptor: Int32? { fd }

    func receiveNow(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? -2 : count
    }
}
