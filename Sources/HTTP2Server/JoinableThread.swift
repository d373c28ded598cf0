import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread its owner waits for to the end. Foundation's `Thread` cannot be joined: a loop that
/// signals "done" still has its thread-local destructors to run, and OpenSSL frees its per-thread
/// state there. A process that exits meanwhile runs `OPENSSL_cleanup` at the same time, and the two
/// free the same memory (seen as "double free or corruption" after a scenario had passed).
public final class JoinableThread: @unchecked Sendable {
    #if os(Linux)
        private var handle = pthread_t()
    #else
        private var handle: pthread_t? = nil
    #endif
    private var joined = false

    /// Starts `body` on a new thread named `name` (15 bytes are kept: Linux's limit).
    public init(name: String, stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) throws(ServerError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let box = Unmanaged.passRetained(Body(body, name: String(name.utf8.prefix(15)) ?? "ringside"))
        let status = pthread_create(
            &handle, &attributes,
            { raw in
                // Optional on Linux, not on Darwin: the same line for both.
                let argument: UnsafeMutableRawPointer? = raw
                let body = Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue()
                _ = ringside_name_this_thread(body.name)
                body.run()
                return nil
            }, box.toOpaque())
        if status != 0 {
            // No thread to be had (the process's limit): the caller cannot serve, and says why.
            box.release()
            throw ServerError("cannot start thread \(name): \(String(cString: strerror(status)))")
        }
    }

    /// Waits until the thread has ended. Called once, by the owner, never from the thread itself.
    public func join() {
        guard !joined else { return }
        joined = true
        #if os(Linux)
            pthread_join(handle, nil)
        #else
            if let handle { pthread_join(handle, nil) }
        #endif
    }

    /// Whether the caller is this thread (a deinit that runs on it must not join it).
    public var isCurrent: Bool {
        #if os(Linux)
            pthread_equal(pthread_self(), handle) != 0
        #else
            handle.map { pthread_equal(pthread_self(), $0) != 0 } ?? false
        #endif
    }

    /// Lets the thread end on its own (its owner is going away on it): nothing is left to join.
    public func detach() {
        guard !joined else { return }
        joined = true
        #if os(Linux)
            pthread_detach(handle)
        #else
            if let handle { pthread_detach(handle) }
        #endif
    }

    private final class Body {
        let run: () -> Void
        let name: String
        init(_ run: @escaping () -> Void, name: String) {
            self.run = run
            self.name = name
        }
    }
}
