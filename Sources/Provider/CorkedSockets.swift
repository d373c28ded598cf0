import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The client's sockets, corked while libcurl works and flushed after each round.
///
/// libcurl 7.88 writes every HTTP/2 frame of every stream with its own `send()`: with 100 streams
/// in flight that is hundreds of tiny TCP segments per round, each crossing the network stack (and
/// waking APNs' reader) on its own. With TCP_CORK (tcp(7)) the kernel holds them until `flush()`,
/// so a round's frames leave together, as an nghttp2 client's do. The bytes and their order are
/// unchanged.
final class CorkedSockets {
    private(set) var open: Set<Int32> = []
    /// How many sockets libcurl has opened: its connections to APNs.
    private(set) var opened = 0

    /// Sends everything held on every socket, then corks them again.
    func flush() {
        for socket in open {
            setOption(socket, 0)
            setOption(socket, 1)
        }
    }

    fileprivate func opened(_ socket: Int32) {
        open.insert(socket)
        opened += 1
        setOption(socket, 1)
    }

    fileprivate func closed(_ socket: Int32) {
        open.remove(socket)
        close(socket)
    }

    private func setOption(_ socket: Int32, _ value: Int32) {
        var value = value
        // Darwin's nearest is TCP_NOPUSH (tcp(4)).
        #if os(Linux)
            let cork = TCP_CORK
        #else
            let cork = TCP_NOPUSH
        #endif
        _ = setsockopt(socket, Int32(IPPROTO_TCP), cork, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes `handle` report its sockets here.
    func watch(_ handle: UnsafeMutableRawPointer) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = ringside_curl_setopt_sockopt_function(handle, socketOpened)
        _ = ringside_curl_setopt_pointer(handle, CURLOPT_SOCKOPTDATA, me)
        _ = ringside_curl_setopt_closesocket_function(handle, socketClosed)
        _ = ringside_curl_setopt_pointer(handle, CURLOPT_CLOSESOCKETDATA, me)
    }
}

private let socketOpened: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t, curlsocktype) -> Int32 = {
    sockets, socket, _ in
    Unmanaged<CorkedSockets>.fromOpaque(sockets!).takeUnretainedValue().opened(socket)
    return CURL_SOCKOPT_OK
}

private let socketClosed: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t) -> Int32 = { sockets, socket in
    Unmanaged<CorkedSockets>.fromOpaque(sockets!).takeUnretainedValue().closed(socket)
    return 0
}
