import Foundation

#if os(Linux)
    import CLinux
#endif

/// What a worker waits for on a socket.
struct Interest: OptionSet, Equatable {
    let rawValue: UInt8
    /// Input, or the peer closing, or an error: each is handled by reading.
    static let read = Interest(rawValue: 1)
    static let write = Interest(rawValue: 2)
}

/// A socket that became ready.
struct ReadyEvent {
    var fd: Int32
    var readable: Bool
    var writable: Bool
}

/// Which kind of loop a server's workers run.
public enum EventLoop: String, Sendable {
    case epoll, poll

    /// epoll where there is one, unless the environment asks for the portable loop
    /// (`RINGSIDE_EVENT_LOOP=poll`).
    public static var standard: EventLoop {
        #if os(Linux)
            return ProcessInfo.processInfo.environment["RINGSIDE_EVENT_LOOP"] == "poll" ? .poll : .epoll
        #else
            return .poll
        #endif
    }
}

/// The sockets an event loop waits on, level-triggered: epoll on Linux, poll(2) elsewhere — and on
/// Linux too when asked, so that the path a macOS build takes runs in the tests here
/// (`PortableEventLoopTests`). poll rebuilds its list every turn: fine for a test's few
/// connections, which is what it is for.
final class Readiness {
    let kind: EventLoop
    /// What each socket is watched for (poll's list; epoll keeps its own).
    private var interests: [Int32: Interest] = [:]
    private var pollList: [pollfd] = []
    #if os(Linux)
        private var epoll: Int32 = -1
        private var epollEvents = [epoll_event](repeating: epoll_event(), count: 256)
    #endif

    init(kind: EventLoop) throws(ServerError) {
        #if os(Linux)
            self.kind = kind
            if kind == .epoll {
                epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
                guard epoll >= 0 else { throw ServerError("epoll: \(String(cString: strerror(errno)))") }
            }
        #else
            self.kind = .poll
        #endif
    }

    deinit {
        #if os(Linux)
            if epoll >= 0 { close(epoll) }
        #endif
    }

    /// Watches `fd` for `interest`, adding it if it is new.
    @discardableResult
    func watch(_ fd: Int32, for interest: Interest) -> Bool {
        let known = interests[fd] != nil
        interests[fd] = interest
        #if os(Linux)
            if kind == .epoll {
                var event = epoll_event()
                event.events = EPOLLRDHUP.rawValue
                if interest.contains(.read) { event.events |= EPOLLIN.rawValue }
                if interest.contains(.write) { event.events |= EPOLLOUT.rawValue }
                event.data.fd = fd
                return epoll_ctl(epoll, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event) == 0
            }
        #endif
        _ = known
        return true
    }

    /// Stops watching `fd` (before it is closed).
    func forget(_ fd: Int32) {
        guard interests.removeValue(forKey: fd) != nil else { return }
        #if os(Linux)
            if kind == .epoll { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil) }
        #endif
    }

    /// Waits up to `timeout` milliseconds; the sockets ready are in `ready` (emptied first).
    func wait(timeout: Int32, into ready: inout [ReadyEvent]) {
        ready.removeAll(keepingCapacity: true)
        #if os(Linux)
            if kind == .epoll {
                let count = epoll_wait(epoll, &epollEvents, Int32(epollEvents.count), timeout)
                guard count > 0 else { return }
                for event in epollEvents[0..<Int(count)] {
                    let closing = EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue
                    ready.append(
                        ReadyEvent(
                            fd: event.data.fd, readable: event.events & closing != 0,
                            writable: event.events & EPOLLOUT.rawValue != 0))
                }
                return
            }
        #endif
        pollList.removeAll(keepingCapacity: true)
        for (fd, interest) in interests {
            var events: Int16 = 0
            if interest.contains(.read) { events |= Int16(POLLIN) }
            if interest.contains(.write) { events |= Int16(POLLOUT) }
            pollList.append(pollfd(fd: fd, events: events, revents: 0))
        }
        let count = poll(&pollList, nfds_t(pollList.count), timeout)
        guard count > 0 else { return }
        for entry in pollList where entry.revents != 0 {
            let watched = interests[entry.fd] ?? []
            // A closed or failed socket is reported whatever was asked: reading it finds out.
            let closing = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
            ready.append(
                ReadyEvent(
                    fd: entry.fd,
                    readable: entry.revents & Int16(POLLIN) != 0
                        || (entry.revents & closing != 0 && watched.contains(.read)),
                    writable: entry.revents & Int16(POLLOUT) != 0
                        || (entry.revents & closing != 0 && watched.contains(.write))))
        }
    }
}

/// Wakes an event loop from another thread: an eventfd on Linux, a pipe elsewhere (and with the
/// portable loop).
final class Wakeup {
    /// The descriptor the loop watches.
    let fd: Int32
    private let writeEnd: Int32

    init(kind: EventLoop) throws(ServerError) {
        #if os(Linux)
            if kind == .epoll {
                fd = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
                writeEnd = fd
                guard fd >= 0 else { throw ServerError("eventfd: \(String(cString: strerror(errno)))") }
                return
            }
        #endif
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ServerError("pipe: \(String(cString: strerror(errno)))") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fd)
        if writeEnd != fd { close(writeEnd) }
    }

    func ring() {
        var one: UInt64 = 1
        _ = write(writeEnd, &one, writeEnd == fd ? 8 : 1)
    }

    /// Takes the wake-ups (all of them: a pipe may hold several).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(fd, &buffer, buffer.count) > 0 && writeEnd != fd {}
    }
}
