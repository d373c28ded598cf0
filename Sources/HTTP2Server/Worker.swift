import Foundation
import Synchronization

/// One event loop: a `Readiness` (epoll, or poll where there is none) watching its connections. The first worker also watches the
/// listening socket and hands new connections to the workers in turn, so a burst of connections
/// spreads across cores (with a shared EPOLLEXCLUSIVE listener the first awake worker took most).
/// Unchecked Sendable: the loop's state is touched only on the worker's own thread (`run`); what other
/// threads hand it is a `Mutex<Inbox>`, `count` an `Atomic`; `team` is set before `run` and after it ends.
final class Worker: @unchecked Sendable {
    private let index: Int
    private let readiness: Readiness
    private let wakeup: Wakeup
    private let listener: Int32
    /// Set while accepting is paused for lack of descriptors or memory.
    private var acceptPausedUntil: Double?
    private var hasReportedAcceptLimit = false
    private var hasReportedConnectionCap = false
    /// A descriptor held for the moment the process has none left (the accepting worker's): closed
    /// to accept the connection that waits, while a stranger is shed to make room, then reopened.
    /// Without it, idle clients holding every descriptor left a valid push unanswered (issue 46).
    private var reserve: Int32 = -1
    static let acceptPause = 0.1
    /// Bytes read from one connection per turn of the event loop (four reads of the buffer).
    static let readPerTurn = 1 << 18
    private let configuration: ServerConfiguration
    private let service: any HTTP2Service
    private let ids: ConnectionIds
    private var connections: [Int32: Connection] = [:]
    private var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Connections that stopped reading because too much output is waiting (back-pressure).
    private var paused: Set<Int32> = []
    /// Connections the server closed, half-closed and drained until the client closes or the
    /// deadline: closing a socket with unread input sends RST, which can destroy the answers and the
    /// GOAWAY still waiting in the client's receive buffer (the lingering close of RFC 9112 §9.6).
    private var lingering: [Int32: Double] = [:]
    static let lingerTime = 2.0

    /// What other threads hand the loop: a request to stop, and accepted sockets.
    private struct Inbox {
        var stopRequest: (debugData: [UInt8], grace: Double)?
        /// Accepted sockets handed over by the accepting worker, with their peer's address.
        var adopted: [HandedOver] = []

        mutating func takeAdopted() -> [HandedOver] {
            defer { adopted.removeAll() }
            return adopted
        }
    }
    private let inbox = Mutex(Inbox())
    /// All workers, for the accepting one to hand connections to; set once before `run`.
    var team: [Worker] = []
    private var nextWorker = 0
    /// The TLS context for new connections.
    let tlsSlot: TLSContextSlot
    /// Actions scheduled by connections (delayed answers), earliest first enough: few at a time.
    private var timers: [(deadline: Double, connection: Connection, action: () -> Void)] = []
    /// Connections open on this worker, read by the server from any thread.
    private let count = Atomic<Int>(0)

    init(index: Int, listener: Int32, configuration: ServerConfiguration, service: any HTTP2Service, ids: ConnectionIds)
        throws(ServerError)
    {
        self.index = index
        self.listener = listener
        self.configuration = configuration
        self.service = service
        self.ids = ids
        tlsSlot = TLSContextSlot(configuration.tls)
        readiness = try Readiness(kind: configuration.eventLoop)
        wakeup = try Wakeup(kind: readiness.kind)
        if index == 0 {
            readiness.watch(listener, for: .read)
            reserve = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        readiness.watch(wakeup.fd, for: .read)
    }

    var connectionCount: Int { count.load(ordering: .relaxed) }

    func requestStop(debugData: [UInt8], grace: Double) {
        inbox.withLock { $0.stopRequest = (debugData, grace) }
        wakeup.ring()
    }

    func run() {
        var events: [ReadyEvent] = []
        events.reserveCapacity(256)
        var lastSweep = monotonicSeconds()
        var stopDeadline: Double?
        while true {
            var timeout: Int32 = stopDeadline == nil ? 1000 : 20
            if let next = (timers.map(\.deadline) + [acceptPausedUntil, lingering.values.min()].compactMap { $0 }).min()
            {
                timeout = min(timeout, Int32(max(0, (next - monotonicSeconds()) * 1000).rounded(.up)))
            }
            readiness.wait(timeout: timeout, into: &events)
            let now = monotonicSeconds()
            for event in events {
                let fd = event.fd
                if fd == listener {
                    if stopDeadline == nil { acceptAll(now: now) }
                } else if fd == wakeup.fd {
                    wakeup.drain()
                    adoptHandedOver(now: now)
                    if stopDeadline == nil, isStopRequested { stopDeadline = beginStop(now: now) }
                } else if let connection = connections[fd] {
                    serve(connection, event, now: now)
                } else if lingering[fd] != nil {
                    drain(fd)
                }
            }
            runTimers(now: now)
            if !events.isEmpty { service.turnEnded() }
            for (fd, deadline) in lingering where now >= deadline { endLinger(fd) }
            if let until = acceptPausedUntil, now >= until, stopDeadline == nil {
                acceptPausedUntil = nil
                readiness.watch(listener, for: .read)
                acceptAll(now: now)
            }
            if let deadline = stopDeadline {
                if connections.isEmpty && lingering.isEmpty || now >= deadline {
                    for fd in Array(connections.keys) { closeConnection(fd) }
                    for fd in Array(lingering.keys) { endLinger(fd) }
                    break
                }
            } else if now - lastSweep >= 1 {
                lastSweep = now
                sweepIdle(now: now)
            }
        }
        // Connections handed over after the stop began: close them unserved.
        for socket in inbox.withLock({ $0.takeAdopted() }) { close(socket.fd) }
        if reserve >= 0 { close(reserve) }
    }

    private func runTimers(now: Double) {
        guard !timers.isEmpty else { return }
        let due = timers.filter { $0.deadline <= now }
        timers.removeAll { $0.deadline <= now }
        for timer in due where connections[timer.connection.fd] === timer.connection {
            timer.action()
            timer.connection.flush()
            writeOut(timer.connection)
        }
    }

    private var isStopRequested: Bool { inbox.withLock { $0.stopRequest != nil } }

    /// A socket accepted by the first worker for another. `othersToAsk` is nil when it may simply
    /// come in; otherwise it comes in only in the place of a connection not yet trusted, and a
    /// worker with none passes it on to the next of the workers still to ask (the team's indices),
    /// so that a stranger on any worker makes room (with one asked, strangers on a third worker were
    /// never shed: the adversary's, session 16).
    struct HandedOver {
        let fd: Int32
        let peer: String
        let othersToAsk: ArraySlice<Int>?
    }

    /// Takes a connection accepted by the first worker (called from another worker's thread).
    func handOver(_ socket: HandedOver) {
        inbox.withLock { $0.adopted.append(socket) }
        wakeup.ring()
    }

    private func adoptHandedOver(now: Double) {
        for socket in inbox.withLock({ $0.takeAdopted() }) {
            guard let others = socket.othersToAsk, !shedStranger() else {
                adopt(fd: socket.fd, peer: socket.peer, now: now)
                continue
            }
            passOnForShedding(socket.fd, peer: socket.peer, to: others)
        }
    }

    /// Hands a newcomer over the cap to the first of `others` that may shed a stranger for it, or
    /// closes it when no worker is left to ask.
    private func passOnForShedding(_ fd: Int32, peer: String, to others: ArraySlice<Int>) {
        guard let next = others.first else { return refuse(fd, peer: peer, why: overCapacity) }
        team[next].handOver(HandedOver(fd: fd, peer: peer, othersToAsk: others.dropFirst()))
    }

    /// Closes the oldest connection the handler has not trusted (`ConnectionControl.trust()`: an
    /// authenticated request, the control API's token): at the connection cap or out of
    /// descriptors, a newcomer takes its place, so strangers cannot lock out a client that proves
    /// who it is. A trusted connection is never shed. False when there is none.
    private func shedStranger() -> Bool {
        guard
            // Ids are taken in the order of accept; many connections share a loop turn's `openedAt`.
            let oldest = connections.values.filter({ !$0.isTrusted && $0.endReason == nil }).min(by: { $0.id < $1.id })
        else { return false }
        oldest.endReason = "shed for a newer connection: \(overCapacity), and it had not authenticated"
        closeConnection(oldest.fd)
        return true
    }

    /// Said once: out of descriptors or memory, what the server does about it.
    private func reportAcceptLimit(_ error: Int32) {
        guard !hasReportedAcceptLimit else { return }
        hasReportedAcceptLimit = true
        let text =
            "ringside: cannot accept connections (\(String(cString: strerror(error)))); each new one takes the place of the oldest that has not authenticated, and with none, accepting is retried every \(Int(Self.acceptPause * 1000)) ms while open connections are served\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }

    private var overCapacity: String {
        configuration.maximumConnections.map { "over --max-connections \($0)" } ?? "out of file descriptors"
    }

    private func refuse(_ fd: Int32, peer: String, why: String) {
        close(fd)
        service.refused(peer: peer, why: why)
    }

    private func beginStop(now: Double) -> Double {
        let request = inbox.withLock { $0.stopRequest } ?? (debugData: [], grace: 1)
        if index == 0 { readiness.forget(listener) }
        for connection in Array(connections.values) {
            connection.shutdown(debugData: request.debugData)
            connection.flush()
            writeOut(connection)
        }
        return now + request.grace
    }

    /// Accepts every waiting connection and deals them to the workers in turn.
    private func acceptAll(now: Double) {
        while true {
            if reserve < 0, index == 0 { reserve = open("/dev/null", O_RDONLY | O_CLOEXEC) }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            func acceptOne() -> Int32 {
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        accept(listener, $0, &length)
                    }
                }
            }
            var fd = acceptOne()
            var shedsStranger = false
            if fd < 0, errno == EMFILE || errno == ENFILE { reportAcceptLimit(errno) }
            if fd < 0, errno == EMFILE || errno == ENFILE, reserve >= 0 {
                // Out of descriptors: the reserve makes room for the connection that waits, and a
                // stranger makes room for the reserve.
                close(reserve)
                reserve = -1
                fd = acceptOne()
                shedsStranger = fd >= 0
                if fd < 0 {
                    let failure = errno
                    reserve = open("/dev/null", O_RDONLY | O_CLOEXEC)
                    errno = failure
                }
            }
            if fd < 0 {
                // EAGAIN: none left. Out of descriptors or memory, the listener stays readable and
                // a level-triggered loop would spin on it: stop watching it for a moment instead,
                // so that the connections already open go on being served.
                let error = errno
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    readiness.forget(listener)
                    acceptPausedUntil = now + Self.acceptPause
                    reportAcceptLimit(error)
                }
                return
            }
            if let cap = configuration.maximumConnections,
                (team.isEmpty ? connectionCount : team.reduce(0) { $0 + $1.connectionCount }) >= cap
            {
                // Over the cap: the newcomer takes the place of the oldest stranger, or is closed at
                // once (every connection authenticated), so that the client learns it now.
                shedsStranger = true
                if !hasReportedConnectionCap {
                    hasReportedConnectionCap = true
                    let text =
                        "ringside: \(cap) connections open (--max-connections); each new one takes the place of the oldest that has not authenticated, or is closed\n"
                    _ = text.withCString { write(2, $0, strlen($0)) }
                }
            }
            // accept4 needs _GNU_SOURCE, which Swift's Glibc module lacks (and Darwin has none): set
            // the flags after accept.
            Socket.prepare(fd)
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            let peer = Self.describe(storage)
            let serving = configuration.acceptorOnly && team.count > 1 ? team.dropFirst() : team[...]
            let target = serving.isEmpty ? self : serving[serving.startIndex + nextWorker % serving.count]
            nextWorker += 1
            // Shedding here frees a descriptor at once: the reserve is back before the next accept.
            let selfServes = serving.isEmpty || serving.contains { $0 === self }
            if shedsStranger, selfServes, shedStranger() {
                adopt(fd: fd, peer: peer, now: now)
                continue
            }
            if shedsStranger {
                let others = serving.filter { $0 !== self }.map(\.index)
                passOnForShedding(fd, peer: peer, to: others[...])
            } else if target === self {
                adopt(fd: fd, peer: peer, now: now)
            } else {
                target.handOver(HandedOver(fd: fd, peer: peer, othersToAsk: nil))
            }
        }
    }

    private func adopt(fd: Int32, peer: String, now: Double) {
        let connection = Connection(
            fd: fd, id: ids.take(), peer: peer, tls: tlsSlot.get(), service: service,
            limits: configuration.limits, now: now, acceptsHTTP1: configuration.acceptsHTTP1)
        connections[fd] = connection
        connection.scheduler = { [unowned self, unowned connection] seconds, action in
            self.timers.append((monotonicSeconds() + seconds, connection, action))
        }
        count.add(1, ordering: .relaxed)
        watch(fd, for: .read)
        // A cleartext connection sends its SETTINGS at once.
        connection.flush()
        writeOut(connection)
    }

    private func serve(_ connection: Connection, _ event: ReadyEvent, now: Double) {
        let fd = connection.fd
        if event.writable {
            writeOut(connection)
            if connections[fd] == nil { return }
        }
        if event.readable, !paused.contains(fd) {
            readIn(connection, now: now)
        }
    }

    private func readIn(_ connection: Connection, now: Double) {
        let fd = connection.fd
        // Read until the socket is empty, until output piles up (back-pressure), or until this turn's
        // share is read: a client that floods cheap frames must not keep the loop from the others
        // (the loop is level-triggered: what is left is read on the next turn).
        var budget = Self.readPerTurn
        while connection.pendingOutput < configuration.limits.maximumPendingOutput {
            if budget <= 0 { return }
            let count = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                budget -= count
                connection.lastActivity = now
                let keepOpen = readBuffer.withUnsafeBytes {
                    connection.received(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                }
                if !keepOpen { connection.closeAfterFlush = true }
                writeOut(connection)
                if connections[fd] == nil || connection.closeAfterFlush { return }
                continue
            }
            if count == 0 {
                connection.endReason = connection.endReason ?? "the client closed the connection"
                closeConnection(fd)
                return
            }
            if errno == EAGAIN || errno == EWOULDBLOCK { return }
            if errno == EINTR { continue }
            connection.endReason = connection.endReason ?? "read failed: \(String(cString: strerror(errno)))"
            closeConnection(fd)
            return
        }
        // Too much output waiting: stop reading until the client takes it.
        paused.insert(fd)
        watch(fd, for: .write)
    }

    /// Writes what the connection has ready; watches for room to write when the socket is full.
    private func writeOut(_ connection: Connection) {
        let fd = connection.fd
        while connection.pendingOutput > 0 {
            let written = connection.output.withUnsafeBytes {
                send(fd, $0.baseAddress! + connection.outputOffset, connection.pendingOutput, Socket.sendFlags)
            }
            if written > 0 {
                connection.outputOffset += written
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                watch(fd, for: paused.contains(fd) ? .write : [.read, .write])
                return
            }
            connection.endReason = connection.endReason ?? "write failed: \(String(cString: strerror(errno)))"
            closeConnection(fd)
            return
        }
        // Everything written: reclaim the buffer, resume reading if paused.
        connection.output.removeAll(keepingCapacity: connection.output.capacity <= 1 << 16)
        connection.outputOffset = 0
        if connection.closeAfterFlush {
            closeConnection(fd, lingering: true)
            return
        }
        // Requests that waited for the answers before them are served now (pipelined HTTP/1.1,
        // HTTP/2 requests behind a client's shut window); their answers go out on the next turn
        // (ready to write), not here: no recursion, and the other connections get a turn.
        if connection.hasBacklog {
            if !connection.serveBacklog() { connection.closeAfterFlush = true }
            if connection.pendingOutput > 0 {
                // Socket bytes only, as `readIn` counts: bodies held behind a shut window must not
                // stop reading, or the WINDOW_UPDATE that releases them would never be read.
                let full = connection.pendingOutput >= configuration.limits.maximumPendingOutput
                if full { paused.insert(fd) } else { paused.remove(fd) }
                watch(fd, for: full ? .write : [.read, .write])
                return
            }
        }
        if paused.remove(fd) != nil {
            watch(fd, for: .read)
            readIn(connection, now: monotonicSeconds())
        } else {
            watch(fd, for: .read)
        }
    }

    private func sweepIdle(now: Double) {
        // A connection quiet for a second gives back the memory its streams in flight kept.
        for connection in connections.values where now - connection.lastActivity >= 1 { connection.trimSpareMemory() }
        if let limit = configuration.handshakeTimeout {
            for connection in Array(connections.values)
            where connection.isAwaitingHandshake && now - connection.openedAt >= limit {
                connection.handshakeTimedOut(after: limit)
                closeConnection(connection.fd)
            }
        }
        if let limit = configuration.untrustedTimeout {
            for connection in Array(connections.values)
            where !connection.isTrusted && now - connection.openedAt >= limit {
                connection.endReason = "not authenticated within \(Int(limit)) s"
                closeConnection(connection.fd)
            }
        }
        guard let timeout = configuration.idleTimeout else { return }
        for connection in Array(connections.values) where now - connection.lastActivity >= timeout {
            connection.idleTimeout()
            connection.flush()
            writeOut(connection)
        }
    }

    /// Forgets the connection; its socket is closed at once, or (`lingering`, everything written)
    /// half-closed and drained first.
    private func closeConnection(_ fd: Int32, lingering: Bool = false) {
        guard let connection = connections.removeValue(forKey: fd) else { return }
        timers.removeAll { $0.connection === connection }
        connection.scheduler = nil
        paused.remove(fd)
        if lingering, shutdown(fd, Int32(SHUT_WR)) == 0 {
            self.lingering[fd] = monotonicSeconds() + Self.lingerTime
            readiness.watch(fd, for: .read)
        } else {
            readiness.forget(fd)
            close(fd)
        }
        connection.closed()
        count.subtract(1, ordering: .relaxed)
    }

    /// Reads and discards what a lingering client still sends, until it closes.
    private func drain(_ fd: Int32) {
        while true {
            let count = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            return endLinger(fd)
        }
    }

    private func endLinger(_ fd: Int32) {
        guard lingering.removeValue(forKey: fd) != nil else { return }
        readiness.forget(fd)
        close(fd)
    }

    /// Sets what a connection's socket is watched for. A connection remembers it, and a change to
    /// what it already has is skipped: after every answer written the connection goes back to
    /// reading, and strace counted one `epoll_ctl` per write for that (level-triggered: the same
    /// events need no new call).
    private func watch(_ fd: Int32, for interest: Interest) {
        guard let connection = connections[fd] else { return }
        if connection.watched == interest { return }
        if readiness.watch(fd, for: interest) { connection.watched = interest }
    }

    private static func describe(_ storage: sockaddr_storage) -> String {
        var copy = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo(
                    $0, socklen_t(MemoryLayout<sockaddr_storage>.size), &host, socklen_t(host.count), &service,
                    socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return "?" }
        return "\(cText(host)):\(cText(service))"
    }
}
